import { cn } from "./cn";

export interface ChartPoint {
  /** Position on the x axis (a time in ms for time series). */
  x: number;
  y: number;
}

export interface SparklineSeries {
  points: readonly ChartPoint[];
  /** A text colour class (`text-accent`): the line and its fill use currentColor. */
  className?: string;
}

interface SparklineProps {
  series: readonly SparklineSeries[];
  /** The x range to draw; defaults to the range of the points. */
  xDomain?: readonly [number, number];
  width?: number;
  height?: number;
  /** What the sparkline shows, for assistive technology; without it the graphic is hidden from it. */
  label?: string;
  className?: string;
}

/** Path commands through the points, scaled to the box (x sorted ascending). */
export function linePath(points: readonly ChartPoint[], sx: (x: number) => number, sy: (y: number) => number): string {
  return points.map((p, i) => `${i ? "L" : "M"}${sx(p.x).toFixed(2)},${sy(p.y).toFixed(2)}`).join("");
}

/** The line path closed down to the baseline, for the area under it. */
export function areaPath(points: readonly ChartPoint[], sx: (x: number) => number, sy: (y: number) => number, baseY: number): string {
  if (!points.length) return "";
  const first = sx(points[0].x).toFixed(2);
  const last = sx(points[points.length - 1].x).toFixed(2);
  return `${linePath(points, sx, sy)}L${last},${baseY.toFixed(2)}L${first},${baseY.toFixed(2)}Z`;
}

/**
 * A tiny inline chart (plain SVG, no axes): one line with a faint fill per series, all series on
 * one scale. Fixed size; with fewer than two points it draws the baseline only.
 */
export function Sparkline({ series, xDomain, width = 120, height = 28, label, className }: SparklineProps) {
  const all = series.flatMap((s) => s.points);
  const x0 = xDomain?.[0] ?? Math.min(...all.map((p) => p.x));
  const x1 = xDomain?.[1] ?? Math.max(...all.map((p) => p.x));
  const yMax = Math.max(0, ...all.map((p) => p.y));
  const pad = 1.5;
  const sx = (x: number) => (x1 > x0 ? ((x - x0) / (x1 - x0)) * width : width / 2);
  const sy = (y: number) => (yMax > 0 ? height - pad - (y / yMax) * (height - 2 * pad) : height - pad);
  return (
    <svg
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role={label ? "img" : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : true}
      className={cn("shrink-0 overflow-visible", className)}
    >
      <line x1={0} x2={width} y1={height - pad} y2={height - pad} className="stroke-border" strokeWidth={1} />
      {yMax > 0 &&
        series.map((s, i) =>
          s.points.length < 2 ? null : (
            <g key={i} className={s.className}>
              <path d={areaPath(s.points, sx, sy, height - pad)} fill="currentColor" fillOpacity={0.12} />
              <path
                d={linePath(s.points, sx, sy)}
                fill="none"
                stroke="currentColor"
                strokeWidth={1.5}
                strokeLinejoin="round"
                strokeLinecap="round"
                vectorEffect="non-scaling-stroke"
              />
            </g>
          ),
        )}
    </svg>
  );
}

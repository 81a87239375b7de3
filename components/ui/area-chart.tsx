"use client";

import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent } from "react";
import { cn } from "./cn";
import { areaPath, linePath, type ChartPoint } from "./sparkline";

export interface AreaChartSeries {
  key: string;
  label: string;
  /** A text colour class (`text-accent`): line, fill, legend swatch and tooltip dot use it. */
  className: string;
  /** One value per entry of `xs`. */
  values: readonly number[];
}

interface AreaChartProps {
  /** Ascending x values (times in ms for time series), shared by all series. */
  xs: readonly number[];
  series: readonly AreaChartSeries[];
  /** Drawing height in px; the width follows the container. */
  height?: number;
  /** Axis labels under the chart. */
  formatX: (x: number) => string;
  /** The tooltip's heading (defaults to formatX). */
  formatXLong?: (x: number) => string;
  formatY: (y: number) => string;
  /** Tick values for the y axis given the largest value (default: 0 and three "nice" decimal steps). */
  yTicks?: (max: number) => number[];
  /** What the chart shows, for assistive technology (e.g. a one-sentence summary). */
  label: string;
  className?: string;
  "data-testid"?: string;
}

/** 0 and about `count` round decimal steps up to at least `max`. */
export function niceTicks(max: number, count = 3): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 0.999; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

const MARGIN = { top: 8, right: 12, bottom: 24 };

/** Rough width in px of a label at text-[11px] (no layout pass needed; CJK glyphs count wider). */
function textWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += ch.codePointAt(0)! >= 0x2e80 ? 11 : 6.5;
  return w;
}

/**
 * A time-series area chart in plain SVG: overlapping translucent areas on one scale, y ticks
 * with grid lines, x labels, and a crosshair tooltip that follows the pointer or the arrow
 * keys (the chart is focusable). The width follows the container (ResizeObserver).
 */
export function AreaChart({
  xs,
  series,
  height = 220,
  formatX,
  formatXLong,
  formatY,
  yTicks = niceTicks,
  label,
  className,
  "data-testid": testId,
}: AreaChartProps) {
  const boxRef = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  const [active, setActive] = useState<number | null>(null);
  const tooltipId = useId();

  useEffect(() => {
    const el = boxRef.current;
    if (!el) return;
    const measure = () => setWidth(Math.floor(el.getBoundingClientRect().width));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const max = Math.max(0, ...series.flatMap((s) => s.values));
  const ticks = useMemo(() => yTicks(max), [yTicks, max]);
  const top = ticks[ticks.length - 1] || 1;
  const tickLabels = ticks.map(formatY);
  // Room for the longest y label (about 6.5 px per character at text-[11px]).
  const left = Math.max(28, Math.max(...tickLabels.map(textWidth)) + 10);
  const plotW = Math.max(0, width - left - MARGIN.right);
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const x0 = xs[0] ?? 0;
  const x1 = xs[xs.length - 1] ?? 1;
  const sx = (x: number) => left + (x1 > x0 ? ((x - x0) / (x1 - x0)) * plotW : plotW / 2);
  const sy = (y: number) => MARGIN.top + plotH - (y / top) * plotH;
  const baseY = sy(0);

  // As many x labels as fit side by side (labels measured roughly: CJK glyphs are wider).
  const labelWidth = Math.max(...xs.map((x) => textWidth(formatX(x))), 30);
  const xTickCount = Math.max(2, Math.min(xs.length, Math.floor(plotW / (labelWidth + 24)) + 1));
  const xTickIdx =
    xs.length <= 1 ? [0] : Array.from({ length: xTickCount }, (_, i) => Math.round((i * (xs.length - 1)) / (xTickCount - 1)));

  function nearest(clientX: number): number | null {
    const el = boxRef.current;
    if (!el || !xs.length) return null;
    const px = clientX - el.getBoundingClientRect().left;
    let best = 0;
    for (let i = 1; i < xs.length; i++) if (Math.abs(sx(xs[i]) - px) < Math.abs(sx(xs[best]) - px)) best = i;
    return best;
  }

  function onKey(e: KeyboardEvent<HTMLDivElement>) {
    if (!xs.length) return;
    const last = xs.length - 1;
    const next =
      e.key === "ArrowLeft" ? Math.max(0, (active ?? last + 1) - 1)
      : e.key === "ArrowRight" ? Math.min(last, (active ?? -1) + 1)
      : e.key === "Home" ? 0
      : e.key === "End" ? last
      : e.key === "Escape" ? null
      : undefined;
    if (next === undefined) return;
    e.preventDefault();
    setActive(next);
  }

  const points = (s: AreaChartSeries): ChartPoint[] => xs.map((x, i) => ({ x, y: s.values[i] ?? 0 }));
  const ax = active !== null ? sx(xs[active]) : 0;

  return (
    <div className={cn("flex flex-col gap-3", className)} data-testid={testId}>
      <ul className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-fg-muted">
        {series.map((s) => (
          <li key={s.key} className="flex items-center gap-1.5">
            <span className={cn("size-2.5 rounded-sm bg-current", s.className)} aria-hidden />
            {s.label}
          </li>
        ))}
      </ul>
      <div
        ref={boxRef}
        role="img"
        aria-label={label}
        aria-describedby={active !== null ? tooltipId : undefined}
        tabIndex={0}
        onKeyDown={onKey}
        onBlur={() => setActive(null)}
        onPointerMove={(e: PointerEvent<HTMLDivElement>) => setActive(nearest(e.clientX))}
        onPointerLeave={() => setActive(null)}
        className="relative w-full touch-pan-y rounded-md focus-visible:outline-2 focus-visible:outline-offset-2"
        style={{ height }}
      >
        {width > 0 && (
          <svg width={width} height={height} className="block overflow-visible" aria-hidden>
            {ticks.map((t, i) => (
              <g key={t}>
                <line x1={left} x2={left + plotW} y1={sy(t)} y2={sy(t)} className={i === 0 ? "stroke-border-strong" : "stroke-border"} strokeDasharray={i === 0 ? undefined : "3 3"} />
                <text x={left - 8} y={sy(t)} dy="0.32em" textAnchor="end" className="fill-fg-subtle text-[11px] tabular-nums">
                  {tickLabels[i]}
                </text>
              </g>
            ))}
            {xTickIdx.map((idx, i) => (
              <text
                key={`${idx}-${i}`}
                x={sx(xs[idx])}
                y={height - 6}
                textAnchor={i === 0 && xTickIdx.length > 1 ? "start" : i === xTickIdx.length - 1 && xTickIdx.length > 1 ? "end" : "middle"}
                className="fill-fg-subtle text-[11px] tabular-nums"
              >
                {formatX(xs[idx])}
              </text>
            ))}
            {series.map((s) => {
              const pts = points(s);
              return (
                <g key={s.key} className={s.className}>
                  <path d={areaPath(pts, sx, sy, baseY)} fill="currentColor" fillOpacity={0.14} />
                  <path d={linePath(pts, sx, sy)} fill="none" stroke="currentColor" strokeWidth={1.75} strokeLinejoin="round" strokeLinecap="round" />
                </g>
              );
            })}
            {active !== null && (
              <g>
                <line x1={ax} x2={ax} y1={MARGIN.top} y2={baseY} className="stroke-fg-subtle" strokeDasharray="2 3" />
                {series.map((s) => (
                  <circle key={s.key} cx={ax} cy={sy(s.values[active] ?? 0)} r={3.5} className={cn("fill-surface stroke-current", s.className)} strokeWidth={2} />
                ))}
              </g>
            )}
          </svg>
        )}
        {active !== null && width > 0 && (
          <div
            id={tooltipId}
            role="status"
            className="pointer-events-none absolute top-1 z-10 min-w-36 rounded-md border border-border bg-surface px-2.5 py-2 text-xs shadow-popover"
            style={ax > width / 2 ? { right: width - ax + 10 } : { left: ax + 10 }}
          >
            <p className="mb-1 font-medium text-fg">{(formatXLong ?? formatX)(xs[active])}</p>
            {series.map((s) => (
              <p key={s.key} className="flex items-center justify-between gap-3 text-fg-muted">
                <span className="flex items-center gap-1.5">
                  <span className={cn("size-2 rounded-full bg-current", s.className)} aria-hidden />
                  {s.label}
                </span>
                <span className="font-medium tabular-nums text-fg">{formatY(s.values[active] ?? 0)}</span>
              </p>
            ))}
          </div>
        )}
      </div>
    </div>
  );
}

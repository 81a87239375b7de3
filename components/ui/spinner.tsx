interface SpinnerProps {
  /** Diameter in pixels. */
  size?: number;
  className?: string;
  /** Accessible label; omit when the spinner sits inside something already labelled as busy. */
  label?: string;
}

export function Spinner({ size = 16, className, label }: SpinnerProps) {
  const stroke = Math.max(2, Math.round(size / 10));
  return (
    <svg
      width={size}
      height={size}
      viewBox={`0 0 ${size} ${size}`}
      // The strokes use currentColor: a caller colours the spinner with a text-* class; no class merger needed.
      className={className ? `animate-spin ${className}` : "animate-spin"}
      role={label ? "status" : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : true}
    >
      <circle
        cx={size / 2}
        cy={size / 2}
        r={size / 2 - stroke}
        fill="none"
        stroke="currentColor"
        strokeOpacity={0.2}
        strokeWidth={stroke}
      />
      <circle
        cx={size / 2}
        cy={size / 2}
        r={size / 2 - stroke}
        fill="none"
        stroke="currentColor"
        strokeWidth={stroke}
        strokeLinecap="round"
        strokeDasharray={`${Math.PI * (size - 2 * stroke) * 0.3} ${Math.PI * (size - 2 * stroke)}`}
      />
    </svg>
  );
}

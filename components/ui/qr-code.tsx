"use client";

import { useEffect, useState } from "react";
import QRCode from "qrcode";
import { cn } from "./cn";
import { Skeleton } from "./skeleton";

interface QrCodeProps {
  value: string;
  /** Alternative text, e.g. "QR code of the configuration for Office". */
  label: string;
  /** Shown when the value does not fit in a QR code. */
  tooLong: string;
  /** Displayed size in pixels (the image is drawn at twice that for sharp screens). */
  size?: number;
  className?: string;
  "data-testid"?: string;
}

/** A QR code of text, always dark on white (scanners need the contrast, in the dark theme too). */
export function QrCode({ value, label, tooLong, size = 224, className, "data-testid": testId }: QrCodeProps) {
  const [state, setState] = useState<{ value: string; url: string | null } | null>(null);

  useEffect(() => {
    let live = true;
    QRCode.toDataURL(value, { errorCorrectionLevel: "L", margin: 2, width: size * 2, color: { dark: "#000000", light: "#ffffff" } })
      .then((url) => live && setState({ value, url }))
      .catch(() => live && setState({ value, url: null }));
    return () => {
      live = false;
    };
  }, [value, size]);

  const current = state?.value === value ? state : null;
  if (!current) return <Skeleton className={cn("shrink-0", className)} style={{ width: size, height: size }} />;
  if (!current.url) {
    return (
      <p className={cn("flex items-center justify-center rounded-lg border border-dashed border-border p-4 text-center text-xs text-fg-muted", className)} style={{ width: size, minHeight: size / 2 }}>
        {tooLong}
      </p>
    );
  }
  return (
    // eslint-disable-next-line @next/next/no-img-element -- a data URL made in the browser
    <img
      src={current.url}
      alt={label}
      width={size}
      height={size}
      data-testid={testId}
      className={cn("shrink-0 rounded-lg border border-border bg-white", className)}
    />
  );
}

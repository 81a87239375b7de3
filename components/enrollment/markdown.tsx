"use client";

import { Fragment, type ReactNode } from "react";

/**
 * A small Markdown subset rendered as React elements (never as HTML text, so nothing in the
 * source can inject markup): headings (#, ##, ###), paragraphs, "-"/"*" and "1." lists,
 * **bold**, *italic*, `code` and [links](https://…) to http(s) and mailto addresses.
 */
const INLINE = /(\*\*[^*]+\*\*|\*[^*\s][^*]*\*|`[^`]+`|\[[^\]]+\]\([^)\s]+\)|https?:\/\/[^\s<)]+)/g;

function inline(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    const s = m[0];
    if (m.index! > last) out.push(text.slice(last, m.index));
    const key = out.length;
    if (s.startsWith("**")) out.push(<strong key={key}>{s.slice(2, -2)}</strong>);
    else if (s.startsWith("`")) out.push(<code key={key} className="rounded bg-subtle px-1 font-mono text-[0.9em]">{s.slice(1, -1)}</code>);
    else if (s.startsWith("*")) out.push(<em key={key}>{s.slice(1, -1)}</em>);
    else {
      const link = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(s);
      const [label, href] = link ? [link[1], link[2]] : [s, s];
      if (/^(https?:|mailto:)/i.test(href)) {
        out.push(
          <a key={key} href={href} className="text-accent underline" target="_blank" rel="noreferrer noopener">
            {label}
          </a>,
        );
      } else out.push(label);
    }
    last = m.index! + s.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

function lines(text: string): ReactNode[] {
  return text.split("\n").map((l, i) => (
    <Fragment key={i}>
      {i > 0 && <br />}
      {inline(l)}
    </Fragment>
  ));
}

export function Markdown({ source, className, "data-testid": testId }: { source: string; className?: string; "data-testid"?: string }) {
  const blocks = source.replace(/\r\n/g, "\n").trim().split(/\n{2,}/);
  return (
    <div className={className} data-testid={testId}>
      {blocks.map((b, i) => {
        const heading = /^(#{1,3})\s+(.*)$/.exec(b);
        if (heading && !b.includes("\n")) {
          const size = ["text-lg", "text-base", "text-sm"][heading[1].length - 1];
          return (
            <p key={i} role="heading" aria-level={heading[1].length + 1} className={`mb-2 font-semibold ${size}`}>
              {inline(heading[2])}
            </p>
          );
        }
        const rows = b.split("\n");
        if (rows.every((r) => /^\s*[-*]\s+/.test(r))) {
          return (
            <ul key={i} className="mb-3 list-disc pl-5">
              {rows.map((r, j) => (
                <li key={j}>{inline(r.replace(/^\s*[-*]\s+/, ""))}</li>
              ))}
            </ul>
          );
        }
        if (rows.every((r) => /^\s*\d+[.)]\s+/.test(r))) {
          return (
            <ol key={i} className="mb-3 list-decimal pl-5">
              {rows.map((r, j) => (
                <li key={j}>{inline(r.replace(/^\s*\d+[.)]\s+/, ""))}</li>
              ))}
            </ol>
          );
        }
        return (
          <p key={i} className="mb-3 last:mb-0">
            {lines(b)}
          </p>
        );
      })}
    </div>
  );
}

import type { Row } from "./types";

function cell(v: string | number | undefined): string {
  if (v === undefined) return "";
  return String(v).replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/** A GitHub-flavoured markdown table; numeric columns are right-aligned. */
export function markdownTable(rows: Row[]): string {
  const columns: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k);
  if (columns.length === 0) return "_(no rows)_";
  const numeric = columns.map((c) => rows.every((r) => r[c] === undefined || /^-?[\d.,]+$|^-$/.test(String(r[c]))));
  const head = `| ${columns.join(" | ")} |`;
  const rule = `|${numeric.map((n) => (n ? " ---: " : " --- ")).join("|")}|`;
  const body = rows.map((r) => `| ${columns.map((c) => cell(r[c])).join(" | ")} |`);
  return [head, rule, ...body].join("\n");
}

/**
 * The root layout carries no providers (the sign-in page ships without them, README "Console
 * weight"), so every other page needs a layout above it that wraps it in FullProviders:
 * (console)/layout.tsx, and one per signed-out section. A new section without one renders
 * "This page couldn't load" in the browser; this catches it before.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const app = join(__dirname);
const wraps = (file: string) => existsSync(file) && readFileSync(file, "utf8").includes("<FullProviders>");

describe("layouts", () => {
  it("the root layout has no providers; the console and every signed-out section but login have FullProviders", () => {
    expect(readFileSync(join(app, "layout.tsx"), "utf8")).not.toMatch(/<(Providers|FullProviders|NextIntlClientProvider)\b/);
    expect(wraps(join(app, "(console)", "layout.tsx"))).toBe(true);
    const sections = readdirSync(join(app, "(public)"), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(sections).toContain("login");
    const missing = sections.filter((s) => s !== "login" && !wraps(join(app, "(public)", s, "layout.tsx")));
    expect(missing).toEqual([]);
  });
});

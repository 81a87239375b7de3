import { describe, expect, it } from "vitest";
import { formattingLocale, isLocale, negotiateLocale, parseAcceptLanguage } from "./negotiate";

describe("parseAcceptLanguage", () => {
  it("orders by q, keeping header order for equal q, and drops * and q=0", () => {
    expect(parseAcceptLanguage("pl;q=0.5, ko, en-US;q=0.8, *;q=0.1, de;q=0")).toEqual(["ko", "en-us", "pl"]);
    expect(parseAcceptLanguage("fr, de, it")).toEqual(["fr", "de", "it"]);
  });

  it("lower-cases tags and ignores junk", () => {
    expect(parseAcceptLanguage("  KO-KR ;q=0.9 , ,EN")).toEqual(["en", "ko-kr"]);
    expect(parseAcceptLanguage("pl;q=abc, ko")).toEqual(["ko"]);
    expect(parseAcceptLanguage("")).toEqual([]);
    expect(parseAcceptLanguage(null)).toEqual([]);
    expect(parseAcceptLanguage(undefined)).toEqual([]);
  });
});

describe("negotiateLocale", () => {
  it.each([
    // exact matches over all preferences come before base-language matches
    ["pl-PL,ko;q=0.9", "ko"],
    ["pl-PL", "pl"],
    ["ko-KR,en;q=0.5", "en"],
    ["en-US", "en"],
    ["en-US,pl;q=0.9", "en"],
    ["en-GB", "en"],
    ["de,fr", "en"],
    ["de-AT,pl-PL;q=0.7", "pl"],
    ["PL", "pl"],
    ["ko", "ko"],
  ])("%s → %s", (header, expected) => {
    expect(negotiateLocale(header)).toBe(expected);
  });

  it("follows q-values, not header order", () => {
    expect(negotiateLocale("en;q=0.3, ko;q=0.9, pl;q=0.6")).toBe("ko");
    expect(negotiateLocale("en;q=0.3, pl-PL;q=0.9, ko;q=0.6")).toBe("ko"); // exact ko beats base pl
    expect(negotiateLocale("en;q=0.3, pl-PL;q=0.9, de;q=0.6")).toBe("en"); // exact en beats base pl
    expect(negotiateLocale("de;q=0.9, pl-PL;q=0.8, ko-KR;q=0.95")).toBe("ko");
  });

  it("ignores languages refused with q=0 and the * wildcard", () => {
    expect(negotiateLocale("ko;q=0, pl;q=0.5")).toBe("pl");
    expect(negotiateLocale("*")).toBe("en");
    expect(negotiateLocale("ko;q=0")).toBe("en");
  });

  it("defaults to English without a header", () => {
    expect(negotiateLocale(null)).toBe("en");
    expect(negotiateLocale(undefined)).toBe("en");
    expect(negotiateLocale("")).toBe("en");
  });

  it("lets the user's cookie choice win over the header", () => {
    expect(negotiateLocale("pl-PL,pl;q=0.9", "ko")).toBe("ko");
    expect(negotiateLocale("ko", "en")).toBe("en");
    expect(negotiateLocale(null, "pl")).toBe("pl");
  });

  it("ignores a cookie that names no supported language", () => {
    expect(negotiateLocale("pl", "de")).toBe("pl");
    expect(negotiateLocale("ko", "")).toBe("ko");
    expect(negotiateLocale("ko", null)).toBe("ko");
    expect(negotiateLocale("ko", "KO-kr")).toBe("ko");
  });
});

describe("locale helpers", () => {
  it("knows exactly en, ko and pl", () => {
    expect(["en", "ko", "pl"].every(isLocale)).toBe(true);
    expect(["de", "EN", "en-US", "", null, 1].some(isLocale)).toBe(false);
  });

  it("formats English as en-US", () => {
    expect(formattingLocale("en")).toBe("en-US");
    expect(formattingLocale("pl")).toBe("pl");
    expect(formattingLocale("ko")).toBe("ko");
  });
});

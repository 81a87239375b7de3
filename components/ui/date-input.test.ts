import { describe, expect, it } from "vitest";
import { formatDateInput, parseDateInput } from "./date-input";

describe("date input (MM/dd/yyyy)", () => {
  it("formats local dates as MM/dd/yyyy, optionally with HH:mm", () => {
    const d = new Date(2025, 0, 5, 7, 30);
    expect(formatDateInput(d)).toBe("01/05/2025");
    expect(formatDateInput(d, true)).toBe("01/05/2025 07:30");
  });

  it("reads what it writes", () => {
    const d = new Date(2024, 1, 29, 23, 0);
    expect(parseDateInput(formatDateInput(d, true))?.getTime()).toBe(d.getTime());
  });

  it("applies the default time when the text has none", () => {
    const d = parseDateInput("12/31/2024", "23:59");
    expect(d && [d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes()]).toEqual([2024, 11, 31, 23, 59]);
    expect(parseDateInput("3/7/2025")?.getDate()).toBe(7);
  });

  it("gives undefined for empty text and null for dates that do not exist", () => {
    expect(parseDateInput("   ")).toBeUndefined();
    for (const bad of ["13/01/2025", "02/30/2025", "02/29/2023", "00/10/2025", "01/01/2025 24:00", "01/01/2025 10:60", "2025-01-01", "1/1/25", "abc"]) {
      expect(parseDateInput(bad), bad).toBeNull();
    }
  });
});

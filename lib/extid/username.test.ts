import { describe, expect, it } from "vitest";
import { usernameFrom, usernameSource } from "./username";

describe("usernameFrom", () => {
  it("RemoveForbidden drops what a username cannot hold", () => {
    expect(usernameFrom("zenek@34", "RemoveForbidden")).toBe("zenek34");
    expect(usernameFrom("__zenek__", "RemoveForbidden")).toBe("zenek__");
    expect(usernameFrom("Alice Smith!", "RemoveForbidden")).toBe("AliceSmith");
    expect(usernameFrom("!@#$", "RemoveForbidden")).toBe("");
    expect(usernameFrom("żółw", "RemoveForbidden")).toBe("w");
  });
  it("ReplaceForbidden puts an underscore in their place", () => {
    expect(usernameFrom("zenek@34", "ReplaceForbidden")).toBe("zenek_34");
    expect(usernameFrom("...first last?", "ReplaceForbidden")).toBe("first_last_");
  });
  it("PruneEmailDomain keeps the e-mail's local part", () => {
    expect(usernameFrom("user.name@domain.org", "PruneEmailDomain")).toBe("user.name");
    expect(usernameFrom("in valid!@domain.com", "PruneEmailDomain")).toBe("in_valid_");
    expect(usernameFrom("no-at-sign", "PruneEmailDomain")).toBe("no-at-sign");
  });
  it("cuts at 63 characters", () => {
    expect(usernameFrom("a".repeat(80), "RemoveForbidden")).toHaveLength(63);
  });
  it("takes preferred_username, else the e-mail's local part", () => {
    expect(usernameSource({ preferred_username: " pref ", email: "x@y.z" })).toBe("pref");
    expect(usernameSource({ email: "local@y.z" })).toBe("local");
    expect(usernameSource({})).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import { ExpiringMap } from "../../src/domain/expiring-map";

describe("ExpiringMap: the bounded memory of the validation cache and the manifest cache", () => {
  it("answers a value only before its own expiry, and drops it after", () => {
    const m = new ExpiringMap<string>(4);
    m.set("a", "one", 1000);
    expect(m.get("a", 999)).toBe("one");
    expect(m.get("a", 1000)).toBeNull();
    expect(m.size).toBe(0);
  });

  it("holds at most its capacity, dropping the oldest insertion first; a set renews a key's place", () => {
    const m = new ExpiringMap<number>(2);
    m.set("a", 1, 10_000);
    m.set("b", 2, 10_000);
    m.set("a", 3, 10_000);
    m.set("c", 4, 10_000);
    expect(m.size).toBe(2);
    expect(m.get("b", 0)).toBeNull();
    expect(m.get("a", 0)).toBe(3);
    expect(m.get("c", 0)).toBe(4);
    m.clear();
    expect(m.get("a", 0)).toBeNull();
  });
});

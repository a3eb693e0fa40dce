import { describe, expect, it } from "vitest";

/**
 * DESIGN.md "One front door": exactly one function decides the client address, and no file outside
 * src/credentials/ reads a credential header. Checked over every source file, so a new route that
 * reads either itself fails here.
 */
const sources = import.meta.glob("../../src/**/*.{ts,tsx}", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const rel = (file: string) => file.replace(/^\.\.\/\.\.\//, "");

/** Reads of a request header by name: header("x"), headers.get("x"), headers.has("x"). */
function readsHeader(source: string, name: RegExp): boolean {
  for (const m of source.matchAll(/(?:\.header|headers\.get|headers\.has)\(\s*["']([^"']+)["']/g)) if (name.test(m[1])) return true;
  return false;
}

describe("one reader per rule (DESIGN.md, One front door)", () => {
  it("only src/http/client-address.ts reads CF-Connecting-IP or X-Forwarded-For", () => {
    const readers = Object.entries(sources)
      .filter(([, s]) => readsHeader(s, /^(cf-connecting-ip|x-forwarded-for)$/i))
      .map(([f]) => rel(f));
    expect(readers).toEqual(["src/http/client-address.ts"]);
  });

  it("no file outside src/credentials/ reads Authorization, PRIVATE-TOKEN or DEPLOY-TOKEN", () => {
    const readers = Object.entries(sources)
      .filter(([, s]) => readsHeader(s, /^(authorization|private-token|deploy-token)$/i))
      .map(([f]) => rel(f))
      .filter((f) => !f.startsWith("src/credentials/"));
    expect(readers).toEqual([]);
  });

  it("the check itself sees a header read", () => {
    expect(readsHeader('c.req.header("CF-Connecting-IP")', /^cf-connecting-ip$/i)).toBe(true);
    expect(readsHeader('req.headers.get("authorization")', /^authorization$/i)).toBe(true);
  });
});

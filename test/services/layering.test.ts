import { describe, expect, it } from "vitest";

/**
 * DESIGN "Layout" and "Conventions" 1: use cases take plain values (bindings, acting principal,
 * input); no Hono Context below the routes. Nothing under src/services, src/db or src/versioning
 * imports Hono, and src/services and src/db import no route family.
 */
const sources = {
  ...import.meta.glob("../../src/services/**/*.{ts,tsx}", { query: "?raw", import: "default", eager: true }),
  ...import.meta.glob("../../src/db/**/*.{ts,tsx}", { query: "?raw", import: "default", eager: true }),
  ...import.meta.glob("../../src/versioning/**/*.{ts,tsx}", { query: "?raw", import: "default", eager: true }),
} as Record<string, string>;

const ROUTE_FAMILIES = ["api", "graphql", "plugin", "git", "web", "registry", "bench"];

function importsOf(source: string): string[] {
  const specs: string[] = [];
  for (const m of source.matchAll(/(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)) specs.push(m[1] ?? m[2]);
  return specs;
}

/** The top-level directory of src/ that a relative import of `file` lands in. */
function srcTopLevel(file: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const parts = file.replace(/^\.\.\/\.\.\/src\//, "").split("/").slice(0, -1);
  for (const seg of spec.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg !== ".") parts.push(seg);
  }
  return parts[0] ?? null;
}

describe("the service layer takes plain values (DESIGN, Layout: src/services; Conventions 1)", () => {
  it("finds the modules of src/services, src/db and src/versioning", () => {
    const files = Object.keys(sources);
    expect(files.some((f) => f.includes("/src/services/applications.ts"))).toBe(true);
    expect(files.some((f) => f.includes("/src/services/accounts/"))).toBe(true);
    expect(files.some((f) => f.includes("/src/versioning/gate.ts"))).toBe(true);
  });

  it("no module below the routes imports Hono (no Context, no Response building)", () => {
    const offenders = Object.entries(sources).flatMap(([file, source]) => importsOf(source).filter((s) => s === "hono" || s.startsWith("hono/")).map((s) => `${file} imports ${s}`));
    expect(offenders).toEqual([]);
  });

  it("src/services and src/db import no route family", () => {
    const offenders: string[] = [];
    for (const [file, source] of Object.entries(sources)) {
      if (file.includes("/src/versioning/")) continue;
      for (const spec of importsOf(source)) {
        const top = srcTopLevel(file, spec);
        if (top && ROUTE_FAMILIES.includes(top)) offenders.push(`${file} imports ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("the checks catch what they look for", () => {
    expect(importsOf('import type { Context } from "hono";')).toEqual(["hono"]);
    expect(srcTopLevel("../../src/services/accounts/lockout.ts", "../../web/page")).toBe("web");
    expect(srcTopLevel("../../src/db/plugins.ts", "./client")).toBe("db");
  });
});

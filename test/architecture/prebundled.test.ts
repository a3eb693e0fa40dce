import { describe, expect, it } from "vitest";
import { PREBUNDLED } from "../setup/prebundled";

/**
 * docs/testing.md, "Why it is fast": the workers projects load packages pre-bundled
 * (test/setup/prebundled.ts). A package imported at run time but not listed would be loaded file
 * by file beside the bundle, with a second copy of any listed package it imports (two
 * HTTPException classes, and `instanceof` fails between them); a listed package nobody imports
 * is bundled for nothing. Sources come in as text through Vite's glob, as in import-graph.ts.
 */
const sources = import.meta.glob(["../../src/**/*.{ts,tsx}", "../**/*.{ts,tsx}"], { query: "?raw", import: "default", eager: true }) as Record<string, string>;

/** Files that run in workerd: src and the workers tests (not the e2e files, nor the Node side of the config in test/setup). */
const inWorkerd = Object.entries(sources).filter(([k]) => !/^\.\.\/(e2e|setup)\//.test(k) || k === "../setup/apply-migrations.ts");

const IMPORT = /^\s*(?:import|export)\s+(type\s+)?(?:[^;]*?\sfrom\s+)?["']([^"']+)["']/gm;
const DYNAMIC = /import\(\s*["']([^"']+)["']\s*\)/g;
/** Modules the runtime provides, and the test framework's own. */
const PROVIDED = /^(?:\.|\/|cloudflare:|node:|vitest$|vitest\/)/;

/** The packages a source imports at run time (`import type` and all-`type` braces are erased). */
function packagesOf(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(IMPORT)) {
    const typeOnly = Boolean(m[1]) || /^\s*import\s*\{(\s*type\s+[^,}]+,?)+\s*\}\s*from/.test(m[0]);
    if (!typeOnly && !PROVIDED.test(m[2])) out.push(m[2]);
  }
  for (const m of source.matchAll(DYNAMIC)) if (!PROVIDED.test(m[1])) out.push(m[1]);
  return out;
}

const imported = new Map<string, string>();
for (const [file, source] of inWorkerd) for (const p of packagesOf(source)) if (!imported.has(p)) imported.set(p, file);

describe("the workers projects' pre-bundled packages (docs/testing.md, Why it is fast)", () => {
  it("the scan sees src and the workers tests, and reads an import of each form", () => {
    expect(inWorkerd.length).toBeGreaterThan(500);
    expect(packagesOf(`import { Hono } from "hono";\nimport type { Env } from "x";\nimport "reflect-metadata";\nimport { type A } from "y";\nconst g = await import("graphql");\nimport { a } from "./local";`)).toEqual(["hono", "reflect-metadata", "graphql"]);
  });

  it("every package the Worker or a workers test imports at run time is pre-bundled", () => {
    const missing = [...imported].filter(([p]) => !PREBUNDLED.includes(p)).map(([p, file]) => `${p} (${file})`);
    expect(missing).toEqual([]);
  });

  it("every pre-bundled package is imported somewhere", () => {
    expect(PREBUNDLED.filter((p) => !imported.has(p))).toEqual([]);
  });
});

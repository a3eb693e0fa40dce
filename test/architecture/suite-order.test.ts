import { describe, expect, it } from "vitest";
import { KNOWN_SLOW, OWN_SERVER } from "../setup/suite-order";

/**
 * docs/testing.md: the lanes take long files first and spread the end-to-end files that start a
 * server of their own (test/setup/sequencer.ts). Its lists name real files, and every file that
 * starts its own `npm start` is listed, so a new one is not started beside all the others at once.
 * Sources come in as text through Vite's glob, as in test-titles.test.ts.
 */
const sources = import.meta.glob(["../**/*.test.ts", "../**/*.test.tsx"], { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const fromRoot = (key: string) => key.replace(/^\.\//, "test/architecture/").replace(/^\.\.\//, "test/");
const files = new Map(Object.entries(sources).map(([k, v]) => [fromRoot(k), v] as const));

describe("the suite's order (docs/testing.md, Long files first)", () => {
  it("every file the order lists exists", () => {
    const missing = [...KNOWN_SLOW, ...OWN_SERVER].filter((f) => !files.has(f));
    expect(missing).toEqual([]);
  });

  it("every end-to-end file that starts its own npm start (startService) is listed as one", () => {
    const starting = [...files].filter(([f, source]) => f.startsWith("test/e2e/") && /\bstartService\(/.test(source)).map(([f]) => f);
    expect(starting.length).toBeGreaterThan(0);
    expect(starting.filter((f) => !OWN_SERVER.has(f))).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";

/**
 * Tests say what they check: a title names the behaviour, the spec row, the RFC section or the
 * design rule, never the issue or review round that asked for it. An issue number tells a reader
 * nothing once the issue is closed, and it hides what a failing test means.
 * Sources come in as text through Vite's glob (as in import-graph.ts), so this runs in the workers
 * pool and sees every test file, the e2e ones included (Vite leaves out this file itself).
 */
const sources = import.meta.glob(["../**/*.ts", "../**/*.tsx"], { query: "?raw", import: "default", eager: true }) as Record<string, string>;

/** Where a title cites an issue: "issue 8", "issues 2 and 3", "Issue #17", "(#17)", "review mend 3". */
const CITES_ISSUE = /\bissues?\s*#?\d+|\(#\d+\)|\bmend\s+\d+/i;

/**
 * The literal titles of describe/it/test calls (with modifiers such as .skip, .each(...)), a title
 * spanning lines included. Template literals count with their `${…}` parts as written.
 */
const TITLE = /\b(?:describe|it|test|bench)(?:\.(?:each\([^)]*\)|\w+))*\(\s*(["'`])((?:\\.|(?!\1)[\s\S])*?)\1/g;

function titlesIn(source: string): { line: number; title: string }[] {
  return [...source.matchAll(TITLE)].map((m) => ({ line: source.slice(0, m.index).split("\n").length, title: m[2] }));
}

/** Vite names each file relative to this one ("./x.ts", "../api/y.ts"); name it from the repository root. */
const fromRoot = (key: string) => key.replace(/^\.\//, "test/architecture/").replace(/^\.\.\//, "test/");
const files = Object.entries(sources).map(([k, v]) => [fromRoot(k), v] as const);

describe("test titles name what they check, not the issue that asked for it", () => {
  it("the glob sees the test files of every project, e2e included", () => {
    const names = files.map(([f]) => f);
    expect(names.filter((f) => f.endsWith(".test.ts")).length).toBeGreaterThan(100);
    expect(names).toContain("test/e2e/configuration.test.ts");
    expect(names).toContain("test/architecture/import-rules.test.ts");
  });

  it("no describe, it or test title cites an issue number", () => {
    const citing = files.flatMap(([file, source]) => titlesIn(source).filter((t) => CITES_ISSUE.test(t.title)).map((t) => `${file}:${t.line}: ${t.title}`));
    expect(citing).toEqual([]);
  });

  it("the scan finds a citing title in each form a test is written", () => {
    const call = (name: string, title: string) => `${name}(${title}, async () => {});`;
    const sample = [
      call("describe", '"Call over each protocol (issue 4: Connect binary)"'),
      call("it.each([1, 2])", "'%s works (Issue #12)'"),
      call("test.skip", "`${x} lists runners (#17)`"),
      `${"it"}(\n  "a title on its own line, review mend 3",\n  () => {});`,
      call("it", '"an issuer names the issued token (RFC 9207)"'),
    ].join("\n");
    const found = titlesIn(sample);
    expect(found.map((t) => t.line)).toEqual([1, 2, 3, 4, 7]);
    expect(found.map((t) => CITES_ISSUE.test(t.title))).toEqual([true, true, true, true, false]);
  });
});

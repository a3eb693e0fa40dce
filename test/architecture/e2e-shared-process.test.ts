import { describe, expect, it } from "vitest";

/**
 * docs/testing.md, "One Node process per end-to-end lane" and "Headless Chromium": the e2e project
 * runs with `isolate: false`, so the files of a lane share one Node process. A file that mocked a
 * module, stubbed a global, faked the timers or changed process.env would change the files after
 * it; and Chromium is started in one place (test/e2e/browser.ts), with one build and one set of
 * flags. Sources come in as text through Vite's glob, as in test-titles.test.ts.
 */
const sources = import.meta.glob("../e2e/**/*.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const files = Object.entries(sources).map(([k, v]) => [k.replace(/^\.\.\//, "test/"), v] as const);

/** What changes the process for the files after this one. */
const CHANGES_THE_PROCESS = /\bvi\.(?:mock|doMock|stubGlobal|stubEnv|useFakeTimers)\(|\bprocess\.env(?:\.\w+|\[[^\]]+\])\s*(?:=(?!=)|\?\?=|\|\|=)|\bdelete\s+process\.env\b|\bprocess\.chdir\(/;
/** A browser started other than through test/e2e/browser.ts. */
const LAUNCHES_A_BROWSER = /\b(?:chromium|firefox|webkit)\.(?:launch|launchServer|launchPersistentContext)\(/;

const offenders = (pattern: RegExp, except: string[] = []) =>
  files.filter(([file, source]) => !except.includes(file) && pattern.test(source)).map(([file]) => file);

describe("end-to-end files share one Node process per lane (docs/testing.md)", () => {
  it("the glob sees the end-to-end files and their helpers", () => {
    const names = files.map(([f]) => f);
    expect(names).toContain("test/e2e/configuration.test.ts");
    expect(names).toContain("test/e2e/browser.ts");
  });

  it("no end-to-end file mocks a module, stubs a global, fakes the timers or changes process.env", () => {
    expect(offenders(CHANGES_THE_PROCESS)).toEqual([]);
  });

  it("Chromium is started only by launchChromium() in test/e2e/browser.ts", () => {
    expect(offenders(LAUNCHES_A_BROWSER, ["test/e2e/browser.ts"])).toEqual([]);
    expect(LAUNCHES_A_BROWSER.test(sources["../e2e/browser.ts"])).toBe(true);
  });

  it("the scans find each form they look for, and not a read of process.env", () => {
    const forms = [
      'vi.mock("./server")',
      "vi.stubGlobal('fetch', f)",
      "vi.useFakeTimers()",
      'process.env.PORT = "1"',
      'process.env["HOME"] ||= "/tmp"',
      "delete process.env.HOME",
      "process.chdir(dir)",
    ];
    expect(forms.filter((f) => !CHANGES_THE_PROCESS.test(f))).toEqual([]);
    expect(CHANGES_THE_PROCESS.test('const env = { ...process.env, PORT: "1" }; if (process.env.CI === "true") {}')).toBe(false);
    expect(LAUNCHES_A_BROWSER.test("await chromium.launch({ executablePath })")).toBe(true);
    expect(LAUNCHES_A_BROWSER.test("await launchChromium()")).toBe(false);
  });
});

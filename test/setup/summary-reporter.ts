import type { Reporter, TestModule } from "vitest/node";

/** How many of the slowest test files the run lists before its closing line. */
const SLOWEST_SHOWN = 10;

/**
 * Ends the run with the slowest test files (where the suite's time goes, so it can be kept short)
 * and the plain line "N passed, N failed, N skipped" that CI reads, after vitest's own report
 * (vitest's summary is not a format CI recognises).
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      // A file that failed to load has no tests but is a failure.
      if (mod.state() === "failed" && [...mod.children.allTests()].length === 0) failed++;
    }
    process.stdout.write(slowestFiles(testModules));
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

/** The files that took longest (setup, collection and tests), one line each, in seconds. */
function slowestFiles(testModules: ReadonlyArray<TestModule>): string {
  const timed = testModules.map((mod) => {
    const d = mod.diagnostic();
    const ms = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
    return { file: `${mod.project.name}: ${mod.relativeModuleId}`, ms };
  });
  timed.sort((a, b) => b.ms - a.ms);
  const lines = timed.slice(0, SLOWEST_SHOWN).map(({ file, ms }) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`);
  return lines.length ? `\nslowest test files:\n${lines.join("\n")}\n` : "";
}

/**
 * Waiting on a condition instead of a fixed time (docs/testing.md, "No fixed sleeps"): a fixed
 * sleep is either too short on a loaded machine (a flaky test) or too long everywhere else (a
 * slow suite). The wait polls and is bounded, and fails naming what it waited for. Runs in workerd
 * and in Node alike (test/e2e/wait.ts adds the Node-only waits).
 */
const POLL_MS = 100;

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `check` every 100 ms (or `everyMs`) until it holds, at most `withinMs`, and returns how
 * long it took, so a test can also check that the state did not change too early.
 */
export async function until(check: () => Promise<boolean> | boolean, withinMs: number, what = "condition", everyMs = POLL_MS): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > withinMs) throw new Error(`${what} not met within ${withinMs} ms`);
    await pause(everyMs);
  }
  return Date.now() - started;
}

/**
 * The Worker writes one request line per request (src/observability/request-log.ts). In the
 * workers pool each console.log is serialised in workerd, sent to vitest over the pool's socket
 * and parsed there, only to be dropped: nobody reads tens of thousands of request lines in a test
 * run. Dropping them here, before vitest's console sees them, took about a sixth off the cost of a
 * simple request (GET /api/v4/user with a PAT: 6.3-7.8 ms against 5.5 ms, docs/testing.md).
 *
 * Tests of the line itself still see every call: vi.spyOn(console, "log") wraps this function
 * (test/observability/request-log.test.ts). Files share a runtime (isolate: false), and this
 * setup file runs before each of them: the wrapper is installed once.
 */
const DROPS_REQUEST_LINES = Symbol.for("edge-auth.test.dropsRequestLines");
const REQUEST_LINE = '{"msg":"request"';

type Log = typeof console.log & { [DROPS_REQUEST_LINES]?: true };
if (!(console.log as Log)[DROPS_REQUEST_LINES]) {
  const forward = console.log;
  const log: Log = (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].startsWith(REQUEST_LINE)) return;
    forward(...args);
  };
  log[DROPS_REQUEST_LINES] = true;
  console.log = log;
}

import { describe, expect, it } from "vitest";
import { call } from "../helpers/fixtures";
import { poolModuleRunner, workerMainPath } from "../helpers/pool-internals";

/**
 * test/setup/remembered-main-module.ts: in the workers pool, a call of the Worker or of one of its
 * Durable Objects does not ask vitest's Node process again for the main module it already
 * evaluated (docs/testing.md, "Why it is fast").
 */
describe("docs/testing.md Why it is fast: the Worker's main module is imported once per runtime", () => {
  it("requests that reach the Worker and a Durable Object make no fetchModule round trip for the main module", async () => {
    const runner = poolModuleRunner();
    expect((await call("/-/health")).status).toBe(200);
    const asked: string[] = [];
    const invoke = runner.transport.invoke;
    runner.transport.invoke = (name, data) => {
      if (name === "fetchModule") asked.push(String(data[0]));
      return invoke.call(runner.transport, name, data);
    };
    try {
      for (let i = 0; i < 5; i++) {
        // A bearer token of the right shape reaches its token object before it is refused.
        expect((await call("/api/v4/user", { token: `glpat-${"a".repeat(64)}` })).status).toBe(401);
      }
    } finally {
      runner.transport.invoke = invoke;
    }
    // Without the remembered module there are fifteen: each request asks for the Worker, the
    // token's object and the failure counter that records the refusal.
    expect(asked.filter((url) => runner.evaluatedModules.getModuleByUrl(url)?.id === workerMainPath())).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { callAt } from "../helpers/versioned";
import { call } from "./helpers";
import { createExecutionContext, env } from "cloudflare:test";
import app from "../../src/app";
import { withVars } from "../../src/config";

describe("bench routes (bench/): mounted only when BENCH_ROUTES is true", () => {
  it("404 by default", async () => {
    expect((await call("/-/bench/empty")).status).toBe(404);
    expect((await callAt("16.0", "/-/bench/do-read")).status).toBe(404);
  });
  it("empty, one Durable Object read, one Durable Object write when enabled", async () => {
    const e = withVars(env, { BENCH_ROUTES: "true" });
    const go = (path: string, method = "GET") => app.fetch(new Request(`http://localhost${path}`, { method }), e, createExecutionContext());
    expect((await go("/-/bench/empty")).status).toBe(200);
    const w = (await (await go("/-/bench/do-write?k=t", "POST")).json()) as { n: number };
    const r = (await (await go("/-/bench/do-read?k=t")).json()) as { n: number };
    expect(r.n).toBe(w.n);
  });
});

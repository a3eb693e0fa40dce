import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import app from "../../src/app";
import { withVars } from "../../src/config";
import { fromTestAddress, type call } from "./fixtures";

/**
 * DESIGN, "Validation cache (bounded staleness)": the test pool turns the cache off
 * (vitest.config.ts), so tests of revocation, blocks and replays that must hold with it on run once
 * per setting here: with the cache on and with it off. "On" uses a bound of 1 s rather than the
 * shipped 5 s: the rule under test (an operation that takes access away answers only after the
 * bound, so the next request is refused) is the same for any bound, and each such answer then
 * waits at most 1 s instead of 5. test/credentials/validation-cache.test.ts checks the shipped
 * default itself, with requests racing the answer.
 */
export const VALIDATION_CACHE_SETTINGS = [
  { setting: "validation cache on (L = 1 s)", seconds: "1" },
  { setting: "validation cache off", seconds: "0" },
] as const;

/** call() against the Worker with VALIDATION_CACHE_SECONDS set to `seconds` (the real bindings otherwise). */
export function callWithValidationCache(seconds: string): typeof call {
  const e = withVars(env, { VALIDATION_CACHE_SECONDS: seconds });
  return async (path, init = {}) => {
    const headers = fromTestAddress(new Headers(init.headers));
    if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
    const url = path.startsWith("http") ? path : `http://localhost${path}`;
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(url, { ...init, headers }), e, ctx);
    // The body is read before the request's background work ends, as a client would.
    const body = await res.arrayBuffer();
    await waitOnExecutionContext(ctx);
    return new Response(res.status === 204 || res.status === 304 ? null : body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** Counts the calls to a Durable Object namespace's objects while forwarding them (the real binding). */
export function countingObjectCalls(ns: DurableObjectNamespace): { ns: DurableObjectNamespace; gets: () => number } {
  let gets = 0;
  const proxy = new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (prop === "get") {
        return (...args: Parameters<DurableObjectNamespace["get"]>) => {
          gets++;
          return target.get(...args);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { ns: proxy, gets: () => gets };
}

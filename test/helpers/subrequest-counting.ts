import { countingEnv } from "./d1-counting";

/**
 * An env whose D1 binding and Durable Object namespaces are the real ones behind counting wrappers:
 * `count()` is every D1 round trip (a batch is one) plus every call on a Durable Object stub, the
 * subrequests Workers counts against an invocation's limit. Never a mock: every call still runs.
 */
export function subrequestCountingEnv() {
  const { env: e, counts } = countingEnv();
  const objectCalls = { n: 0 };
  const wrapStub = (stub: object): object =>
    new Proxy(stub, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target) as unknown;
        if (typeof prop === "symbol" || prop === "then" || typeof v !== "function") return v;
        return (...args: unknown[]) => {
          objectCalls.n += 1;
          return Reflect.apply(v as (...a: unknown[]) => unknown, target, args);
        };
      },
    });
  const wrapNamespace = (ns: DurableObjectNamespace): DurableObjectNamespace =>
    new Proxy(ns, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target) as unknown;
        if (prop === "get" || prop === "getByName") return (...args: unknown[]) => wrapStub((v as (...a: unknown[]) => object).apply(target, args));
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  const wrapped = { ...e } as Record<string, unknown>;
  for (const [k, v] of Object.entries(e)) {
    if (v && typeof (v as DurableObjectNamespace).idFromName === "function") wrapped[k] = wrapNamespace(v as DurableObjectNamespace);
  }
  const start = { d1: 0, objects: 0 };
  return {
    env: wrapped as unknown as typeof e,
    /** Subrequests since the last `reset()`. */
    count: () => counts.roundTrips - start.d1 + objectCalls.n - start.objects,
    /** A new invocation starts: counting starts from zero. */
    reset: () => {
      start.d1 = counts.roundTrips;
      start.objects = objectCalls.n;
    },
  };
}

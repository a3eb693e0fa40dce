import type { Context } from "hono";
import { getConfig } from "../config";
import type { AppEnv } from "../env";
import { gate as versionGate, type DeprecationSink } from "../versioning/gate";

const sinks = new WeakMap<Context, DeprecationSink>();

/**
 * The deprecation gate as a route sees it: the configured service version, and this request's
 * response as the place deprecation headers go (one sink per request, so marks accumulate).
 */
export function gate(c: Context<AppEnv>) {
  let sink = sinks.get(c);
  if (!sink) {
    // The origin only for a response that is marked (most are not): parsing the URL costs on every request.
    let origin: string | undefined;
    sink = {
      get origin() {
        return (origin ??= new URL(c.req.url).origin);
      },
      header: (name, value, options) => c.header(name, value, options),
    };
    sinks.set(c, sink);
  }
  return versionGate(getConfig(c.env).serviceVersion, sink);
}

import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import type { AppEnv } from "../env";
import { setResponseHeader } from "../http/response-headers";

/**
 * Request ids and the one structured log line per request (docs/operations.md).
 *
 * The line names the route pattern (`/api/v4/projects/:id`), never the raw URL: query strings carry
 * `?access_token=`, `?code=` and `?state=`, and paths can carry file names. Nothing from headers or
 * bodies is logged, so no token, secret, password or code can reach the logs through this line.
 */
export const REQUEST_ID_HEADER = "X-Request-Id";

/**
 * An incoming id is kept when it is short and made of URL-safe characters, so a proxy's id ties its
 * logs to ours; anything else (long, spaces, control characters) is replaced, since it would be
 * echoed in a header and written to the logs.
 */
const WELL_FORMED_ID = /^[A-Za-z0-9][A-Za-z0-9._:+=\/-]{0,127}$/;

export function requestIdFor(incoming: string | null | undefined): string {
  if (incoming && WELL_FORMED_ID.test(incoming)) return incoming;
  return crypto.randomUUID().replace(/-/g, "");
}

/** The fields of one request's log line. */
export interface RequestLogLine {
  msg: "request";
  request_id: string;
  method: string;
  route: string;
  status: number;
  duration_ms: number;
  user_id: number | null;
}

export const requestLog = createMiddleware<AppEnv>(async (c, next) => {
  const started = Date.now();
  const requestId = requestIdFor(c.req.header(REQUEST_ID_HEADER));
  c.set("requestId", requestId);
  await next();
  setResponseHeader(c, REQUEST_ID_HEADER, requestId);
  const line: RequestLogLine = {
    msg: "request",
    request_id: requestId,
    method: c.req.method,
    // After next() the route index points at the handler that answered (or the last middleware
    // when nothing matched); its registered pattern, not the URL.
    route: routePath(c) || "unmatched",
    status: c.res.status,
    duration_ms: Date.now() - started,
    user_id: c.get("principal")?.user.id ?? c.get("sessionUserId") ?? null,
  };
  console.log(JSON.stringify(line));
});

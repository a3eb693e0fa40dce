import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import { getConfig } from "../config";
import type { AppEnv, Bindings } from "../env";
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
  if (!writesRequestLines(c.env)) return;
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
  emitRequestLine(line);
});

/**
 * REQUEST_LOG (README, Configuration): on unless set to false, which `npm start` does without
 * --verbose, where wrangler's log level would drop each line after spending 2-3 ms of CPU on
 * it (docs/operations.md, Logs). A configuration the service refuses still logs its requests.
 */
function writesRequestLines(env: Bindings): boolean {
  try {
    return getConfig(env).requestLog;
  } catch {
    return true;
  }
}

/** A JSON string literal; the common case (no quote, backslash or control character) without JSON.stringify. */
const NEEDS_ESCAPING = /["\\\u0000-\u001f]/;
const jsonString = (s: string) => (NEEDS_ESCAPING.test(s) ? JSON.stringify(s) : `"${s}"`);

/**
 * The line's text, the same JSON that JSON.stringify(line) gives (test/observability/request-log.test.ts
 * compares them), assembled by concatenation: every field is a number, null or a short string that
 * rarely needs escaping (the request id is WELL_FORMED_ID's, the method an HTTP token, the route a
 * pattern of this code), and one line per request is on every request's path (bench/RESULTS.md).
 */
export function requestLineText(line: RequestLineFields): string {
  return `{"msg":"request","request_id":${jsonString(line.request_id)},"method":${jsonString(line.method)},"route":${jsonString(line.route)},"status":${line.status},"duration_ms":${line.duration_ms},"user_id":${line.user_id}}`;
}

type RequestLineFields = Omit<RequestLogLine, "msg">;

/** One console.log per request: Workers Logs indexes the JSON's fields (docs/operations.md, Logs). */
function emitRequestLine(line: RequestLogLine): void {
  console.log(requestLineText(line));
}

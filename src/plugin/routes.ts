import { cors as connectCors, createConnectRouter, createContextValues, type ConnectRouter } from "@connectrpc/connect";
import { universalServerRequestFromFetch, universalServerResponseToFetch, type UniversalHandler } from "@connectrpc/connect/protocol";
import { Hono, type Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { cors } from "hono/cors";
import type { AppEnv } from "../env";
import { Plugin } from "../gen/proto/plugin_pb";
import { workerKey } from "./context";
import { concat } from "./files";
import { fastUnaryCall, isFastUnary } from "./unary-fast";
import { pluginService } from "./service";
import { AppError } from "../domain/errors";
import { ThrottledError, rateLimitHeaders } from "../throttle";
import { PLUGIN_CODES } from "./codes";
import { logUnexpectedError } from "../observability/error-log";

/**
 * /proto.Plugin/*: the Connect router (Connect binary and JSON, gRPC-Web; unary, client- and
 * server-streaming) behind Hono. Plain gRPC needs HTTP/2 trailers, which workerd cannot send:
 * it is answered with an error naming the protocols that are served.
 */
const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

let handlers: Map<string, UniversalHandler> | null = null;
function handlerFor(path: string): UniversalHandler | undefined {
  if (!handlers) {
    const router: ConnectRouter = createConnectRouter({
      connect: true,
      grpcWeb: true,
      grpc: false,
      // A SendFile part is at most 4 MiB of Data plus its envelope.
      readMaxBytes: MAX_MESSAGE_BYTES,
      writeMaxBytes: MAX_MESSAGE_BYTES,
    });
    router.service(Plugin, pluginService);
    handlers = new Map(router.handlers.map((h) => [h.requestPath, h]));
  }
  return handlers.get(path);
}

export const SUPPORTED_PROTOCOLS =
  "Connect (application/proto, application/json, application/connect+proto, application/connect+json) and gRPC-Web (application/grpc-web, application/grpc-web+proto, application/grpc-web+json)";

const COALESCE_BYTES = 1024 * 1024;

type ByobReader = ReadableStreamBYOBReader & {
  /** workerd's extension: resolves once at least `min` bytes (or the end) arrived. */
  readAtLeast?(min: number, view: Uint8Array): Promise<ReadableStreamReadResult<Uint8Array>>;
};

async function* coalesced(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  let reader: ByobReader;
  try {
    reader = body.getReader({ mode: "byob" }) as ByobReader;
  } catch {
    // Not a byte stream (a body made in JavaScript, as in a service binding call): read as is.
    yield* plainChunks(body);
    return;
  }
  try {
    for (;;) {
      const view = new Uint8Array(COALESCE_BYTES);
      const r = reader.readAtLeast ? await reader.readAtLeast(COALESCE_BYTES, view) : await reader.read(view);
      if (r.value && r.value.byteLength > 0) yield r.value;
      if (r.done) return;
    }
  } finally {
    reader.releaseLock();
  }
}

/** A unary request body in one piece (the runtime buffers it; no JS stream reads). */
async function* wholeBody(req: Request): AsyncGenerator<Uint8Array> {
  yield new Uint8Array(await req.arrayBuffer());
}

async function* plainChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) return;
      yield r.value;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * The Plugin RPC family's renderer for an exception outside the Connect router (which renders its
 * own handlers' errors): Connect's JSON error, its code from the error family's code (internal for
 * anything unexpected), never a stack.
 */
export function renderConnectError(err: Error, c: Context): Response {
  c.header("Cache-Control", "no-store");
  if (err instanceof ThrottledError) for (const [k, v] of Object.entries(rateLimitHeaders(err.status))) c.header(k, v);
  if (err instanceof AppError && err.code !== "internal") {
    const { connect, http } = PLUGIN_CODES[err.code];
    return c.json({ code: connect, message: err.message }, http as ContentfulStatusCode);
  }
  logUnexpectedError("plugin_rpc", err, c);
  return c.json({ code: "internal", message: "internal error" }, 500);
}

const routes = new Hono<AppEnv>();
routes.onError(renderConnectError);

// Browser plugin clients (connect-web) call from other origins with bearer tokens, never cookies.
routes.use(
  "/proto.Plugin/*",
  cors({
    origin: (origin) => origin,
    allowMethods: [...connectCors.allowedMethods],
    // DPoP (RFC 9449): the proof is sent, the nonce and the challenge read.
    allowHeaders: [...connectCors.allowedHeaders, "Authorization", "DPoP"],
    exposeHeaders: [...connectCors.exposedHeaders, "DPoP-Nonce", "WWW-Authenticate"],
    maxAge: 7200,
    credentials: false,
  }),
);

routes.all("/proto.Plugin/:method", async (c) => {
  const contentType = c.req.header("content-type") ?? "";
  if (/^application\/grpc(\+[a-z]+)?(;|$)/i.test(contentType)) {
    const message = `plain gRPC is not served (it needs HTTP/2 trailers); use ${SUPPORTED_PROTOCOLS}`;
    // A trailers-only gRPC answer, readable by gRPC clients: status 12 UNIMPLEMENTED.
    return new Response(message, {
      status: 415,
      headers: { "content-type": "text/plain; charset=utf-8", "grpc-status": "12", "grpc-message": encodeURIComponent(message) },
    });
  }
  const req = c.req.raw;
  const path = new URL(req.url).pathname;
  const handler = handlerFor(path);
  if (!handler) return c.json({ code: "unimplemented", message: `proto.Plugin has no method ${c.req.param("method")}` }, 404);
  const contextValues = createContextValues().set(workerKey, {
    env: c.env,
    waitUntil: (p) => c.executionCtx.waitUntil(p),
    request: c.req.raw,
  });
  const fast = isFastUnary(req, path);
  if (fast) return fastUnaryCall(req, fast, contextValues);
  // SendFile bodies are read in 1 MiB pieces rather than the transport's small chunks: each chunk
  // passes through several async stages of the Connect pipeline, so fewer, larger ones are faster.
  const uReq =
    handler.method.methodKind === "client_streaming" && req.body
      ? { httpVersion: "", method: req.method, url: req.url, header: req.headers, body: coalesced(req.body), signal: req.signal, contextValues }
      : handler.method.methodKind === "unary" && req.body
        ? { httpVersion: "", method: req.method, url: req.url, header: req.headers, body: wholeBody(req), signal: req.signal, contextValues }
        : { ...universalServerRequestFromFetch(req, {}), contextValues };
  const uRes = await handler(uReq);
  if (handler.method.methodKind === "unary" && uRes.body) {
    // A unary answer is one small body: hand it to the runtime whole rather than as a JS stream.
    const chunks: Uint8Array[] = [];
    let total = 0;
    for await (const chunk of uRes.body) {
      chunks.push(chunk);
      total += chunk.byteLength;
    }
    return new Response(concat(chunks, total) as Uint8Array<ArrayBuffer>, { status: uRes.status, headers: uRes.header });
  }
  return universalServerResponseToFetch(uRes);
});

export default routes;

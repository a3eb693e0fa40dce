import { create, fromBinary, fromJsonString, toBinary, toJsonString } from "@bufbuild/protobuf";
import { Code, ConnectError, createHandlerContext, type ContextValues } from "@connectrpc/connect";
import { codeToHttpStatus, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { parseTimeout, setTrailerStatus, trailerFlag, trailerSerialize } from "@connectrpc/connect/protocol-grpc-web";
import { concat } from "./files";
import { Plugin, ReqSchema, ResSchema } from "../gen/proto/plugin_pb";
import { pluginService } from "./service";

/**
 * Unary Call over Connect (binary and JSON) and gRPC-Web (binary), without compression, answered
 * without the generic router pipeline, which costs more than the call itself for a small message
 * (bench/RESULTS.md). Same implementation, same wire format and error rendering (connect-es's own
 * error JSON, status mapping and gRPC-Web trailer serialisation); anything else — gRPC-Web JSON,
 * compression, GET, streams — goes through the router.
 */
const MAX_BYTES = 8 * 1024 * 1024;

export type FastFormat = "binary" | "json" | "grpc-web";

export function isFastUnary(req: Request, path: string): FastFormat | null {
  if (req.method !== "POST" || path !== "/proto.Plugin/Call") return null;
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type === "application/grpc-web" || type === "application/grpc-web+proto") {
    const enc = req.headers.get("grpc-encoding");
    return enc && enc !== "identity" ? null : "grpc-web";
  }
  const enc = req.headers.get("content-encoding");
  if (enc && enc !== "identity") return null;
  const version = req.headers.get("connect-protocol-version");
  if (version !== null && version !== "1") return null;
  if (type === "application/proto") return "binary";
  if (type === "application/json") return "json";
  return null;
}

/** gRPC-Web frames: flags byte, big-endian length, data. */
function frame(flags: number, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + data.byteLength);
  out[0] = flags;
  new DataView(out.buffer).setUint32(1, data.byteLength);
  out.set(data, 5);
  return out;
}

function grpcWebResponse(message: Uint8Array | null, err: ConnectError | undefined, extra?: Headers): Response {
  const headers = new Headers(extra);
  headers.set("content-type", "application/grpc-web+proto");
  const trailer = frame(trailerFlag, trailerSerialize(setTrailerStatus(new Headers(), err)));
  const data = message ? frame(0, message) : null;
  const body = data ? concat([data, trailer], data.byteLength + trailer.byteLength) : trailer;
  return new Response(body as Uint8Array<ArrayBuffer>, { status: 200, headers });
}

function unframe(bytes: Uint8Array): Uint8Array {
  if (bytes.byteLength < 5) throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
  if (bytes[0] !== 0) throw new ConnectError("protocol error: compressed or unexpected frame", Code.InvalidArgument);
  const len = new DataView(bytes.buffer, bytes.byteOffset, 5).getUint32(1);
  if (bytes.byteLength !== 5 + len) throw new ConnectError("protocol error: expected exactly one message", Code.InvalidArgument);
  return bytes.subarray(5);
}

function errorResponse(err: unknown): Response {
  const ce = ConnectError.from(err);
  const headers = new Headers({ "content-type": "application/json" });
  ce.metadata.forEach((v, k) => headers.set(k, v));
  return new Response(errorToJsonBytes(ce, {}) as Uint8Array<ArrayBuffer>, { status: codeToHttpStatus(ce.code), headers });
}

export async function fastUnaryCall(req: Request, format: FastFormat, contextValues: ContextValues): Promise<Response> {
  try {
    const bytes = new Uint8Array(await req.arrayBuffer());
    if (bytes.byteLength > MAX_BYTES) throw new ConnectError(`message larger than ${MAX_BYTES} bytes`, Code.ResourceExhausted);
    let message;
    try {
      message =
        format === "json" ? fromJsonString(ReqSchema, new TextDecoder().decode(bytes)) : fromBinary(ReqSchema, format === "grpc-web" ? unframe(bytes) : bytes);
    } catch (err) {
      if (err instanceof ConnectError) throw err;
      throw new ConnectError(`cannot decode the request as ${format === "json" ? "JSON" : "protobuf"} proto.Req`, Code.InvalidArgument);
    }
    const timeout =
      format === "grpc-web" ? (parseTimeout(req.headers.get("grpc-timeout"), Number.MAX_SAFE_INTEGER).timeoutMs ?? NaN) : Number(req.headers.get("connect-timeout-ms"));
    const ctx = createHandlerContext({
      service: Plugin,
      method: Plugin.method.call,
      protocolName: format === "grpc-web" ? "grpc-web" : "connect",
      requestMethod: "POST",
      url: req.url,
      requestHeader: req.headers,
      requestSignal: req.signal,
      timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : undefined,
      contextValues,
    });
    const res = create(ResSchema, await pluginService.call(message, ctx));
    if (format === "grpc-web") return grpcWebResponse(toBinary(ResSchema, res), undefined, ctx.responseHeader);
    const headers = new Headers(ctx.responseHeader);
    headers.set("content-type", format === "binary" ? "application/proto" : "application/json");
    const body = format === "binary" ? toBinary(ResSchema, res) : new TextEncoder().encode(toJsonString(ResSchema, res));
    return new Response(body as Uint8Array<ArrayBuffer>, { status: 200, headers });
  } catch (err) {
    if (format === "grpc-web") {
      // The error's metadata (a DPoP challenge and nonce) rides in the trailer and in the headers.
      const ce = ConnectError.from(err);
      return grpcWebResponse(null, ce, ce.metadata);
    }
    return errorResponse(err);
  }
}

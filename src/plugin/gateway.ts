import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createFetchClient } from "@connectrpc/connect/protocol";
import { createTransport } from "@connectrpc/connect/protocol-connect";
import type { Bindings } from "../env";
import { FileStreamSchema, Plugin, ReqSchema, type FileStream, type Req } from "../gen/proto/plugin_pb";
import { PluginError, ResCode, type ResCodeValue } from "./codes";
import type { ChatMessage } from "./functions";

/**
 * External plugins are reached over Connect (binary) at their registered endpoint, so this
 * service is a gateway: it authenticates and checks the envelope, then forwards the Req and
 * streams the replies through. An endpoint is
 *   service:<BINDING>   a service binding of this Worker (production; in tests an auxiliary worker)
 *   https://host/path   any Connect server (http: only for loopback hosts)
 * The caller's token is never forwarded; the caller is named in x-plugin-caller-* headers.
 */
export const CALL_TIMEOUT_MS = 30_000;
const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

type FetchFn = typeof fetch;

function resolveEndpoint(env: Bindings, endpoint: string): { fetch: FetchFn; baseUrl: string } {
  if (endpoint.startsWith("service:")) {
    const binding = (env as unknown as Record<string, unknown>)[endpoint.slice("service:".length)] as Fetcher | undefined;
    if (!binding || typeof binding.fetch !== "function") {
      throw new PluginError(ResCode.UNAVAILABLE, `plugin endpoint ${endpoint} is not bound to this service`);
    }
    return { fetch: ((input: RequestInfo | URL, init?: RequestInit) => binding.fetch(input as RequestInfo, init)) as FetchFn, baseUrl: "https://plugin.internal" };
  }
  return { fetch: ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init)) as FetchFn, baseUrl: endpoint.replace(/\/+$/, "") };
}

function pluginClient(env: Bindings, endpoint: string): Client<typeof Plugin> {
  const { fetch, baseUrl } = resolveEndpoint(env, endpoint);
  const transport = createTransport({
    httpClient: createFetchClient(fetch),
    baseUrl,
    useBinaryFormat: true,
    interceptors: [],
    acceptCompression: [],
    sendCompression: null,
    compressMinBytes: Number.MAX_SAFE_INTEGER,
    readMaxBytes: MAX_MESSAGE_BYTES,
    writeMaxBytes: MAX_MESSAGE_BYTES,
  });
  return createClient(Plugin, transport);
}

export interface Caller {
  userId: number;
  username: string;
}

function callerHeaders(caller: Caller): Record<string, string> {
  return { "x-plugin-caller-id": String(caller.userId), "x-plugin-caller-username": caller.username };
}

/** A plugin's failure becomes the Res it would have been: its Connect code is a gRPC code. */
function asPluginError(name: string, err: unknown): PluginError {
  if (err instanceof PluginError) return err;
  const ce = ConnectError.from(err);
  if (ce.code === Code.Unavailable || ce.code === Code.Unknown || ce.code === Code.Internal) {
    return new PluginError(ResCode.UNAVAILABLE, `plugin ${name} failed: ${ce.rawMessage}`);
  }
  return new PluginError(ce.code as ResCodeValue, `plugin ${name}: ${ce.rawMessage}`);
}

export interface ForwardedRes {
  code: number;
  desc: string;
  data: Uint8Array;
}

export async function forwardCall(env: Bindings, name: string, endpoint: string, req: Req, caller: Caller, signal: AbortSignal): Promise<ForwardedRes> {
  if (endpoint === "") throw new PluginError(ResCode.UNAVAILABLE, `plugin ${name} has no endpoint`);
  try {
    const res = await pluginClient(env, endpoint).call(create(ReqSchema, req), { headers: callerHeaders(caller), timeoutMs: CALL_TIMEOUT_MS, signal });
    return { code: res.Code, desc: res.Desc, data: res.Data };
  } catch (err) {
    throw asPluginError(name, err);
  }
}

/** The plugin's stream, message by message as it arrives. */
export async function* forwardChat(env: Bindings, name: string, endpoint: string, req: Req, caller: Caller, signal: AbortSignal): AsyncGenerator<ChatMessage & { code: number }> {
  if (endpoint === "") throw new PluginError(ResCode.UNAVAILABLE, `plugin ${name} has no endpoint`);
  try {
    for await (const res of pluginClient(env, endpoint).chat(create(ReqSchema, req), { headers: callerHeaders(caller), signal })) {
      yield { code: res.Code, desc: res.Desc, data: res.Data };
    }
  } catch (err) {
    throw asPluginError(name, err);
  }
}

/**
 * SendFile to an external plugin: the checked messages (checkedParts: the same stream rules as a
 * core upload) are streamed to the plugin's SendFile as they arrive, nothing is stored here, and
 * the plugin's single Res is the answer. A rule broken mid-stream cancels the plugin's call and
 * answers with the rule's code, as a core upload would.
 */
export async function forwardSendFile(
  env: Bindings,
  name: string,
  endpoint: string,
  parts: AsyncIterable<FileStream>,
  caller: Caller,
  signal: AbortSignal,
): Promise<ForwardedRes> {
  if (endpoint === "") throw new PluginError(ResCode.UNAVAILABLE, `plugin ${name} has no endpoint`);
  let broken: PluginError | null = null;
  const abort = new AbortController();
  signal.addEventListener("abort", () => abort.abort(signal.reason), { once: true });
  async function* relay(): AsyncGenerator<FileStream> {
    try {
      for await (const m of parts) yield create(FileStreamSchema, m);
    } catch (err) {
      if (!(err instanceof PluginError)) throw err;
      broken = err;
      abort.abort();
    }
  }
  try {
    const res = await pluginClient(env, endpoint).sendFile(relay(), { headers: callerHeaders(caller), timeoutMs: CALL_TIMEOUT_MS, signal: abort.signal });
    if (broken) throw broken;
    return { code: res.Code, desc: res.Desc, data: res.Data };
  } catch (err) {
    if (broken) throw broken;
    throw asPluginError(name, err);
  }
}

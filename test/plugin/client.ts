import { create } from "@bufbuild/protobuf";
import { createClient, type Client, type Transport } from "@connectrpc/connect";
import { createFetchClient } from "@connectrpc/connect/protocol";
import { createTransport as connectTransport } from "@connectrpc/connect/protocol-connect";
import { createTransport as grpcWebTransport } from "@connectrpc/connect/protocol-grpc-web";
import { createExecutionContext, env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import app from "../../src/app";
import type { Bindings } from "../../src/env";
import { fromTestAddress } from "../helpers/fixtures";
import { HeaderSchema, Plugin, type Header } from "../../src/gen/proto/plugin_pb";

/**
 * Connect clients whose fetch is the Worker's own. connect-web's transports refuse client
 * streams (browsers have no streaming request bodies), so these use connect-es's protocol
 * transports over a fetch client: all three stream shapes work.
 */
export type Protocol = "connect" | "connect-json" | "grpc-web";
export const PROTOCOLS: Protocol[] = ["connect", "connect-json", "grpc-web"];

export function workerFetch(vars?: Bindings): (req: Request) => Promise<Response> {
  // From this test file's client address, as fixtures' call() sends it.
  const addressed = (req: Request) => (fromTestAddress(req.headers), req);
  if (!vars) return (req) => exports.default.fetch(addressed(req));
  return async (req) => app.fetch(addressed(req), vars, createExecutionContext());
}

/** The transport options of these clients: the Worker's own fetch, no compression. */
export function transportOptions(token?: string, fetchFn = workerFetch(), useBinaryFormat = true) {
  return {
    // createFetchClient sends the request body as a ReadableStream: client streaming in workerd.
    httpClient: createFetchClient(((input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input as RequestInfo, init);
      if (token) req.headers.set("Authorization", `Bearer ${token}`);
      return fetchFn(req);
    }) as typeof fetch),
    baseUrl: "http://localhost",
    useBinaryFormat,
    interceptors: [],
    acceptCompression: [],
    sendCompression: null,
    compressMinBytes: Number.MAX_SAFE_INTEGER,
    readMaxBytes: 16 * 1024 * 1024,
    writeMaxBytes: 16 * 1024 * 1024,
  };
}

export function transport(protocol: Protocol, token?: string, fetchFn = workerFetch()): Transport {
  const options = transportOptions(token, fetchFn, protocol !== "connect-json");
  return protocol === "grpc-web" ? grpcWebTransport(options) : connectTransport(options);
}

export function pluginClient(protocol: Protocol, token?: string, fetchFn?: (req: Request) => Promise<Response>): Client<typeof Plugin> {
  return createClient(Plugin, transport(protocol, token, fetchFn));
}

export function header(init: Partial<Omit<Header, "$typeName">> = {}): Header {
  return create(HeaderSchema, { UUID: crypto.randomUUID(), Timestamp: BigInt(Date.now()), Func: "ping", ...init });
}

export const enc = (s: string) => new TextEncoder().encode(s);
export const dec = (b: Uint8Array) => new TextDecoder().decode(b);
export const asJson = (b: Uint8Array) => JSON.parse(dec(b));

/** Every key stored in the files bucket under a prefix. */
export async function listKeys(prefix = "plugin-files/"): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.FILES.list({ prefix, cursor });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys;
}

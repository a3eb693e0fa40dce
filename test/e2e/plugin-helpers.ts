import { create } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { HeaderSchema, Plugin, type Header } from "../../src/gen/proto/plugin_pb";
import { passwordGrant } from "./pages-support";

/** Node clients of the Plugin service for the end-to-end tests (against `npm start`). */
export type Protocol = "connect" | "connect-json" | "grpc-web";
export const PROTOCOLS: Protocol[] = ["connect", "connect-json", "grpc-web"];

/** root's OAuth access token (password grant, scope api): the token a plugin client would hold. */
export function rootToken(baseURL: string, password: string): Promise<string> {
  return passwordGrant(baseURL, "root", password, "api");
}

/** A personal access token for root with scope api, made through the admin API. */
export async function rootPat(baseURL: string, oauthToken: string): Promise<string> {
  const auth = { Authorization: `Bearer ${oauthToken}` };
  const me = (await (await fetch(`${baseURL}/api/v4/user`, { headers: auth })).json()) as { id: number };
  const res = await fetch(`${baseURL}/api/v4/users/${me.id}/personal_access_tokens`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify({ name: `e2e-plugin-${Date.now()}`, scopes: ["api"], expires_at: new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10) }),
  });
  if (res.status !== 201) throw new Error(`PAT: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

export function pluginClient(protocol: Protocol, baseUrl: string, token: string): Client<typeof Plugin> {
  const bearer: Interceptor = (next) => (req) => {
    req.header.set("Authorization", `Bearer ${token}`);
    return next(req);
  };
  const options = {
    baseUrl,
    httpVersion: "1.1" as const,
    interceptors: [bearer],
    readMaxBytes: 16 * 1024 * 1024,
    writeMaxBytes: 16 * 1024 * 1024,
  };
  return createClient(
    Plugin,
    protocol === "grpc-web" ? createGrpcWebTransport(options) : createConnectTransport({ ...options, useBinaryFormat: protocol === "connect" }),
  );
}

export function header(init: Partial<Omit<Header, "$typeName">> = {}): Header {
  return create(HeaderSchema, { UUID: crypto.randomUUID(), Timestamp: BigInt(Date.now()), Func: "ping", ...init });
}

export const enc = (s: string) => new TextEncoder().encode(s);
export const dec = (b: Uint8Array) => new TextDecoder().decode(b);

import { createServer, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseURL } from "./idp-helpers";

/**
 * docs/agents.md, "Client ID Metadata Documents": the guarded fetch of a document has a time limit
 * over the whole answer and refuses with invalid_client, the reason shown, whatever the document's
 * server does. Real loopback servers (ALLOW_LOOPBACK_CLIENT_METADATA, on under `npm start`) that
 * send their headers and then a byte every half second, or cut the connection with a reset in the
 * middle of the body.
 */
let server: Server;
let port = 0;
const sockets = new Set<Socket>();
const timers = new Set<NodeJS.Timeout>();

function trickle(res: ServerResponse) {
  res.writeHead(200, { "Content-Type": "application/json" });
  const body = '{"client_name":"' + "x".repeat(40) + '"}';
  let at = 0;
  // Bounded: at most the body's length in bytes, one every 0.5 s (about 25 s, past the 5 s limit).
  const timer = setInterval(() => {
    if (at >= body.length || res.destroyed) {
      clearInterval(timer);
      res.end();
      return;
    }
    res.write(body[at++]);
  }, 500);
  timers.add(timer);
}

function reset(res: ServerResponse) {
  res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "400" });
  res.write('{"client_id":"http://127.0.0.1/cut","client_name":"');
  // A TCP reset (RST), not a clean close, once the first part has gone out.
  setTimeout(() => res.socket?.resetAndDestroy(), 100);
}

beforeAll(async () => {
  server = createServer((req, res) => (req.url?.startsWith("/trickle/") ? trickle(res) : reset(res)));
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  for (const t of timers) clearInterval(t);
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
});

async function authorize(clientId: string): Promise<Response> {
  const url = new URL(`${baseURL}/oauth/authorize`);
  const params = { client_id: clientId, redirect_uri: "http://127.0.0.1:9/callback", response_type: "code", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return fetch(url, { redirect: "manual" });
}

describe("Client ID Metadata Documents: a document server that trickles or resets (draft-ietf-oauth-client-id-metadata-document §6, fetch limits)", () => {
  it("headers, then a byte every 0.5 s: refused with invalid_client after the 5 s limit, never a 500", async () => {
    const started = Date.now();
    const res = await authorize(`http://127.0.0.1:${port}/trickle/client.json`);
    const html = await res.text();
    expect(res.status).toBe(400);
    expect(html).toContain("invalid_client");
    expect(html).toContain("not complete within 5 seconds");
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);

  it("a body cut by a connection reset: refused with invalid_client saying the connection was cut, never a 500", async () => {
    const res = await authorize(`http://127.0.0.1:${port}/reset/client.json`);
    const html = await res.text();
    expect(res.status).toBe(400);
    expect(html).toContain("invalid_client");
    expect(html).toContain("connection was cut");
  }, 30_000);
});

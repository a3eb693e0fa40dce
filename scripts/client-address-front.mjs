// The front of `npm start`: a pass-through on the public port that tells the Worker which
// connection a request came from (DESIGN.md, "Client address"; src/http/client-address.ts).
//
// Why it exists: under `wrangler dev` the Worker never sees the socket. Miniflare's entry worker
// sets CF-Connecting-IP from the socket only when the request does not carry one already, so a
// client that sends its own CF-Connecting-IP picks the address every throttle, lockout and audit
// row would use. Deployed, Cloudflare overwrites that header; here this front does the same: it
// replaces CF-Connecting-IP with the connection's own address, unless the operator opted in to a
// proxy of their own in front (CLIENT_ADDRESS_HEADER=CF-Connecting-IP), and passes everything else
// through unchanged, streamed both ways. wrangler dev itself listens on a loopback port of its own.
import http from "node:http";

/** Starts the front on host:port, forwarding to the wrangler dev server at 127.0.0.1:targetPort. */
export function startClientAddressFront({ host, port, targetPort, trustClientHeader }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const server = http.createServer((req, res) => {
    const headers = rawHeadersWithout(req.rawHeaders, trustClientHeader ? [] : ["cf-connecting-ip"]);
    if (!trustClientHeader) headers.push("CF-Connecting-IP", unmapped(req.socket.remoteAddress ?? ""));
    const upstream = http.request({ host: "127.0.0.1", port: targetPort, method: req.method, path: req.url, headers, agent }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.statusMessage, up.rawHeaders);
      up.pipe(res);
    });
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502, { "Content-Type": "text/plain" }).end("npm start: the Worker is not answering yet\n");
      else res.destroy();
    });
    req.pipe(upstream);
  });
  // Hop-by-hop upgrades (WebSocket) are not served by this service; refuse them plainly.
  server.on("upgrade", (_req, socket) => socket.end("HTTP/1.1 501 Not Implemented\r\nConnection: close\r\n\r\n"));
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}

/** The raw header list without the named headers (case-insensitive); keeps repeated headers. */
function rawHeadersWithout(raw, names) {
  const out = [];
  for (let i = 0; i < raw.length; i += 2) if (!names.includes(raw[i].toLowerCase())) out.push(raw[i], raw[i + 1]);
  return out;
}

/** An IPv4 client on a dual-stack socket appears as ::ffff:a.b.c.d; the Worker sees a.b.c.d. */
function unmapped(address) {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1] : address;
}

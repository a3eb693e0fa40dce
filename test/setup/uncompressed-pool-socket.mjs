import { createRequire } from "node:module";

/**
 * The workers pool sends every module, file and message to its runtimes over a WebSocket that
 * Miniflare opens with the `ws` package's defaults, so permessage-deflate is negotiated and every
 * message vitest's main process sends is deflated, on loopback, only for workerd to inflate it
 * again: 18 s of the main process's CPU over the workers projects (`node --cpu-prof`, zlib under
 * ws's permessage-deflate), besides what workerd spends inflating. Miniflare offers no option
 * for it, so the main process's sends go uncompressed (`compress: false`, ws's own per-message
 * option; a frame without RSV1 is valid whatever was negotiated, RFC 7692 §6). A Node module
 * of its own, loaded by vitest.config.ts only: the service and the end-to-end tests' clients are
 * untouched.
 */
const require = createRequire(import.meta.url);
const WebSocket = require("ws");
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function sendUncompressed(data, options, cb) {
  if (typeof options === "function") return send.call(this, data, { compress: false }, options);
  return send.call(this, data, { ...options, compress: false }, cb);
};

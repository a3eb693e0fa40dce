/**
 * Uint8Array.prototype.toBase64 (TC39 "Uint8Array to/from base64", in V8 since 13.x: workerd has
 * it, Node 22's V8 12.4 does not), installed for the end-to-end files when Node lacks it, on
 * Buffer's native encoder. protobuf-es encodes `bytes` fields for the JSON protocols (Connect's
 * JSON codec) with the native method when present, else with a loop of one string concatenation
 * per byte: 9 s of the client's CPU for test/e2e/plugin-upload.test.ts's 50 MiB over connect-json,
 * against tens of milliseconds natively. Same output (RFC 4648 base64 or base64url, padded unless
 * `omitPadding`), so what goes over the wire is unchanged. A setup file of the e2e project
 * (vitest.config.ts), so it is in place before protobuf-es reads the method at load.
 */
type ToBase64Options = { alphabet?: "base64" | "base64url"; omitPadding?: boolean };

export function toBase64(bytes: Uint8Array, options: ToBase64Options = {}): string {
  const alphabet = options.alphabet ?? "base64";
  if (alphabet !== "base64" && alphabet !== "base64url") throw new TypeError(`unknown base64 alphabet ${String(alphabet)}`);
  const padded = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  const text = alphabet === "base64url" ? padded.replace(/\+/g, "-").replace(/\//g, "_") : padded;
  return options.omitPadding ? text.replace(/=+$/, "") : text;
}

const proto = Uint8Array.prototype as Uint8Array & { toBase64?: unknown };
if (typeof proto.toBase64 !== "function") {
  Object.defineProperty(Uint8Array.prototype, "toBase64", {
    value: function (this: Uint8Array, options?: ToBase64Options) {
      return toBase64(this, options);
    },
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

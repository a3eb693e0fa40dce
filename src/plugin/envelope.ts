import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { HeaderSchema, type Header } from "../gen/proto/plugin_pb";
import { CORE, isPluginName } from "../domain/plugin-registration";

export { CORE, isPluginName };

/** Header rules (DESIGN, "Plugin RPC protocol"; docs/plugin-protocol.md, "Header"). */
export const MAX_SKEW_MS = 5 * 60 * 1000;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FUNC_RE = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/;

export interface CheckedHeader {
  uuid: string;
  timestamp: number;
  from: string;
  /** "core" when the request left To empty. */
  to: string;
  func: string;
}

/**
 * Checks the envelope of a request. A violation is a Connect invalid_argument error: the envelope
 * is malformed, so no Res can be addressed. Whether From belongs to the caller is checked later,
 * against the registry.
 */
export function checkHeader(header: Header | undefined, now: number, opts: { funcRequired: boolean }): CheckedHeader {
  if (!header) throw new ConnectError("Header is required", Code.InvalidArgument);
  if (!header.UUID) throw new ConnectError("Header.UUID is required", Code.InvalidArgument);
  if (!UUID_RE.test(header.UUID)) {
    throw new ConnectError("Header.UUID must be a UUID (8-4-4-4-12 hexadecimal digits)", Code.InvalidArgument);
  }
  const timestamp = Number(header.Timestamp);
  if (!Number.isSafeInteger(timestamp) || Math.abs(timestamp - now) > MAX_SKEW_MS) {
    throw new ConnectError(
      `Header.Timestamp must be milliseconds since the epoch within 5 minutes of the server clock (server time ${now})`,
      Code.InvalidArgument,
    );
  }
  if (header.From !== "" && !isPluginName(header.From)) {
    throw new ConnectError("Header.From is not a plugin name", Code.InvalidArgument);
  }
  const to = header.To === "" ? CORE : header.To;
  if (!isPluginName(to)) throw new ConnectError("Header.To is not a plugin name", Code.InvalidArgument);
  if (opts.funcRequired && !header.Func) throw new ConnectError("Header.Func is required", Code.InvalidArgument);
  if (header.Func !== "" && !FUNC_RE.test(header.Func)) {
    throw new ConnectError("Header.Func is not a function name", Code.InvalidArgument);
  }
  return { uuid: header.UUID, timestamp, from: header.From, to, func: header.Func };
}

/** The reply's Header: UUID and Func echoed, From and To swapped, the server's Timestamp. */
export function replyHeader(h: CheckedHeader, now = Date.now()): Header {
  return create(HeaderSchema, { UUID: h.uuid, Func: h.func, From: h.to, To: h.from, Timestamp: BigInt(now) });
}


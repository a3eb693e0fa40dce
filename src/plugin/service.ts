import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import type { Principal } from "../credentials/principal";
import { getDb, type Db } from "../db/client";
import { sha256Hex } from "../crypto/hash";
import { Plugin, ResSchema, type FileStream, type Req, type Res } from "../gen/proto/plugin_pb";
import { PluginError, ResCode, resCodeOf } from "./codes";
import { AppError } from "../domain/errors";
import { authenticate } from "./context";
import { CORE_CALLS, CORE_CHATS } from "./core";
import { checkHeader, CORE, replyHeader, type CheckedHeader } from "./envelope";
import { forwardCall, forwardChat, forwardSendFile } from "./gateway";
import { checkedParts } from "./upload";
import { getConfig } from "../config";
import { fromBase64, toBase64 } from "../crypto/random";
import type { FnContext } from "./functions";
import { claimCall, findPluginsByName, releaseCall, storeCallResult, sweepCallResults, type PluginRow } from "../db/plugins";
import { concat } from "./files";
import { sendFile } from "./send-file";
import { combinedDeprecationHeaders } from "../versioning/gate";

/** proto.Plugin: Call, SendFile and Chat (DESIGN, "Plugin RPC protocol"). */

function res(h: CheckedHeader, code: number, desc: string, data: Uint8Array = new Uint8Array(0)): Res {
  return create(ResSchema, { Header: replyHeader(h), Code: code, Desc: desc, Data: data });
}

/** Unexpected failures are logged and become a bare Connect internal error: no stack leaves. */
async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ConnectError) throw err;
    console.error("plugin service: unexpected error", err);
    throw new ConnectError("internal error", Code.Internal);
  }
}

/**
 * A streamed request message that does not decode is the client's error: connect-es reports it as
 * `internal` ("parse binary: …", "parse json: …"), which would read as our fault; it becomes
 * `invalid_argument`, as connect-es already answers for a unary request.
 */
function decodedMessages<T>(requests: AsyncIterable<T>): AsyncIterator<T> {
  const it = requests[Symbol.asyncIterator]();
  return {
    async next() {
      try {
        return await it.next();
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.Internal && /^parse /.test(err.rawMessage)) {
          throw new ConnectError(err.rawMessage, Code.InvalidArgument);
        }
        throw err;
      }
    },
  };
}

export interface Envelope {
  principal: Principal;
  header: CheckedHeader;
  db: Db;
  fc: FnContext;
  /** The registry row of To, when To is not core (undefined: unknown plugin). */
  target: PluginRow | undefined;
}

/** Authentication, the Header rules, and From against the caller's registered plugins. */
export async function openEnvelope(header: Req["Header"], ctx: HandlerContext, funcRequired: boolean): Promise<Envelope> {
  const { principal, worker } = await authenticate(ctx);
  const h = checkHeader(header, Date.now(), { funcRequired });
  const db = getDb(worker.env.DB);
  const names = [...new Set([h.from, h.to].filter((n) => n !== "" && n !== CORE))];
  const rows = await findPluginsByName(db, names);
  if (h.from !== "") {
    const own = h.from === CORE ? undefined : rows.find((r) => r.name === h.from);
    if (!own || own.ownerId !== principal.user.id) {
      throw new ConnectError(`Header.From "${h.from}" is not one of your registered plugins`, Code.PermissionDenied);
    }
  }
  const fc: FnContext = { principal, header: h, worker, db, signal: ctx.signal };
  return { principal, header: h, db, fc, target: rows.find((r) => r.name === h.to) };
}

function unknownTarget(h: CheckedHeader): PluginError {
  return new PluginError(ResCode.NOT_FOUND, `no plugin named "${h.to}"`);
}

async function runCall(req: Req, env: Envelope, signal: AbortSignal): Promise<Res> {
  const h = env.header;
  try {
    if (h.to === CORE) {
      const fn = CORE_CALLS[h.func];
      if (!fn) {
        const why = CORE_CHATS[h.func] ? `core function "${h.func}" is served by Chat, not Call` : `core has no function "${h.func}"`;
        return res(h, ResCode.UNIMPLEMENTED, why);
      }
      return res(h, ResCode.OK, "", await fn(req.Data, env.fc));
    }
    if (!env.target) throw unknownTarget(h);
    const caller = { userId: env.principal.user.id, username: env.principal.user.username };
    const out = await forwardCall(env.fc.worker.env, env.target.name, env.target.endpoint, req, caller, signal);
    return res(h, out.code, out.desc, out.data);
  } catch (err) {
    if (err instanceof AppError && err.code !== "internal") return res(h, resCodeOf(err), err.message);
    throw err;
  }
}

/** core functions without side effects (docs/plugin-protocol.md, "Idempotency"). */
export const SAFE_CORE_CALLS = new Set(["ping", "whoami", "deprecations.list", "files.get"]);

/** Transient outcomes are not remembered: a retry with the same UUID runs again. */
const RETRYABLE = new Set<number>([ResCode.INTERNAL, ResCode.UNAVAILABLE]);

export const pluginService: ServiceImpl<typeof Plugin> = {
  call: (req, ctx) =>
    guard(async () => {
      const env = await openEnvelope(req.Header, ctx, true);
      const { header: h, db, principal } = env;
      // Safe functions change nothing, so running one again answers as the first run did: no
      // record is needed (HTTP's idempotent methods; the Idempotency-Key draft covers unsafe ones).
      if (h.to === CORE && SAFE_CORE_CALLS.has(h.func)) return runCall(req, env, ctx.signal);
      const now = Date.now();
      const key = h.uuid.toLowerCase();
      // The bytes themselves are hashed: no base64 copy of up to 8 MiB of Data.
      const prefix = new TextEncoder().encode(`${h.to}\u0000${h.func}\u0000`);
      const requestHash = await sha256Hex(concat([prefix, req.Data], prefix.byteLength + req.Data.byteLength) as Uint8Array<ArrayBuffer>);
      const claim = await claimCall(db, principal.user.id, key, requestHash, now);
      if (claim.kind !== "claimed") {
        if (claim.requestHash !== requestHash) {
          return res(h, ResCode.INVALID_ARGUMENT, "Header.UUID was already used for a different request in the last 10 minutes");
        }
        if (claim.kind === "in_flight") return res(h, ResCode.ABORTED, "a call with this Header.UUID is still running");
        return fromBinary(ResSchema, fromBase64(claim.res));
      }
      if (Math.random() < 0.01) env.fc.worker.waitUntil(sweepCallResults(db, now));
      let out: Res;
      try {
        out = await runCall(req, env, ctx.signal);
      } catch (err) {
        await releaseCall(db, principal.user.id, key);
        throw err;
      }
      // Recorded after the reply is sent: a retry racing the record sees Code 10 and retries.
      if (RETRYABLE.has(out.Code)) env.fc.worker.waitUntil(releaseCall(db, principal.user.id, key));
      else env.fc.worker.waitUntil(storeCallResult(db, principal.user.id, key, toBase64(toBinary(ResSchema, out))));
      return out;
    }),

  sendFile: (requests, ctx) =>
    guard(async () => {
      const it = decodedMessages(requests);
      const first = await it.next();
      if (first.done) throw new ConnectError("SendFile needs at least one FileStream message", Code.InvalidArgument);
      const env = await openEnvelope(first.value.Header, ctx, false);
      const h = env.header;
      try {
        if (h.to !== CORE) {
          if (!env.target) throw unknownTarget(h);
          const caller = { userId: env.principal.user.id, username: env.principal.user.username };
          const limits = getConfig(env.fc.worker.env).upload;
          const parts = { [Symbol.asyncIterator]: () => checkedParts(first.value, sameUuid(it, h), limits) };
          const out = await forwardSendFile(env.fc.worker.env, env.target.name, env.target.endpoint, parts, caller, ctx.signal);
          return res(h, out.code, out.desc, out.data);
        }
        const reply = await sendFile(first.value, sameUuid(it, h), env);
        // A deprecated thing used (a report failing its schema at 14.10, a deprecated CI keyword)
        // marks the HTTP answer as REST does (docs/deprecations.md).
        const marks = combinedDeprecationHeaders(reply.deprecatedIds, new URL(ctx.url).origin);
        if (marks) {
          ctx.responseHeader.set("Deprecation", marks.Deprecation);
          if (marks.Sunset) ctx.responseHeader.set("Sunset", marks.Sunset);
          for (const link of marks.links) ctx.responseHeader.append("Link", link);
        }
        return res(h, ResCode.OK, reply.warnings.length ? reply.warnings.join("; ") : "", reply.data);
      } catch (err) {
        if (err instanceof AppError && err.code !== "internal") return res(h, resCodeOf(err), err.message);
        throw err;
      }
    }),

  chat: (req, ctx) => chatStream(req, ctx),
};

/** Later messages may omit Header; when they carry one, its UUID must be the first message's. */
function sameUuid(it: AsyncIterator<FileStream>, h: CheckedHeader): AsyncIterator<FileStream> {
  return {
    async next() {
      const r = await it.next();
      if (!r.done && r.value.Header && r.value.Header.UUID !== "" && r.value.Header.UUID !== h.uuid) {
        throw new PluginError(ResCode.INVALID_ARGUMENT, `part ${r.value.Part}: Header.UUID differs from the first message's`);
      }
      return r;
    },
  };
}

async function* chatStream(req: Req, ctx: HandlerContext): AsyncGenerator<Res> {
  const env = await guard(() => openEnvelope(req.Header, ctx, true));
  const h = env.header;
  try {
    if (h.to === CORE) {
      const fn = CORE_CHATS[h.func];
      if (!fn) {
        const why = CORE_CALLS[h.func] ? `core function "${h.func}" is served by Call, not Chat` : `core has no function "${h.func}"`;
        yield res(h, ResCode.UNIMPLEMENTED, why);
        return;
      }
      for await (const m of fn(req.Data, env.fc)) yield res(h, ResCode.OK, m.desc ?? "", m.data);
      return;
    }
    if (!env.target) throw unknownTarget(h);
    const caller = { userId: env.principal.user.id, username: env.principal.user.username };
    for await (const m of forwardChat(env.fc.worker.env, env.target.name, env.target.endpoint, req, caller, ctx.signal)) {
      yield res(h, m.code, m.desc ?? "", m.data);
    }
  } catch (err) {
    if (err instanceof AppError && err.code !== "internal") {
      yield res(h, resCodeOf(err), err.message);
      return;
    }
    if (err instanceof ConnectError) throw err;
    if (ctx.signal.aborted) return;
    console.error("plugin service: unexpected error in Chat", err);
    throw new ConnectError("internal error", Code.Internal);
  }
}

import { userPrivate } from "../api/v4/user-entities";
import { getConfig } from "../config";
import { catalogueReport } from "../versioning/report";
import { invalidArgument, notFound, PluginError, ResCode } from "./codes";
import { fileJson, readFileChunks } from "./files";
import { fromBase64, toBase64 } from "../crypto/random";
import { jsonData, parseJsonData, type CallFn, type ChatFn, type FnContext } from "./functions";
import { findFile } from "../db/plugins";
import { checkTopic, readSubscription, topicStub } from "./topics";

/** The built-in plugin `core` (docs/plugin-protocol.md, "core functions"). */

async function ownFile(fc: FnContext, id: unknown) {
  if (typeof id !== "string" || id === "") throw invalidArgument("Data must be JSON {\"id\": \"<file id>\"}");
  const file = await findFile(fc.db, id);
  // Another user's file is as absent as a missing one (no existence oracle).
  if (!file || (file.ownerId !== fc.principal.user.id && !fc.principal.user.isAdmin)) throw notFound(`file ${id} not found`);
  return file;
}

export const CORE_CALLS: Record<string, CallFn> = {
  async ping(data) {
    return data;
  },
  async whoami(_data, fc) {
    // Exactly what GET /api/v4/user answers for this token.
    const me = fc.principal.user;
    return jsonData(await userPrivate(me, new URL(fc.worker.request.url).origin, me.isAdmin));
  },
  async "deprecations.list"(_data, fc) {
    return jsonData(catalogueReport(getConfig(fc.worker.env).serviceVersion));
  },
  async "files.get"(data, fc) {
    const req = parseJsonData(data, invalidArgument);
    return jsonData(fileJson(await ownFile(fc, req.id)));
  },
  async "topic.publish"(data, fc) {
    const req = parseJsonData(data, invalidArgument);
    const topic = checkTopic(req.topic);
    if (typeof req.message !== "string") throw invalidArgument("Data must be JSON {\"topic\": \"...\", \"message\": \"...\"}");
    const result = await topicStub(fc.worker.env, topic).publish(fc.header.from, toBase64(new TextEncoder().encode(req.message)));
    return jsonData({ topic, seq: result.seq, delivered: result.delivered });
  },
};

const MAX_CHUNK = 4 * 1024 * 1024;

export const CORE_CHATS: Record<string, ChatFn> = {
  async *"topic.subscribe"(data, fc) {
    const req = parseJsonData(data, invalidArgument);
    const topic = checkTopic(req.topic);
    const limit = req.limit === undefined ? Infinity : Number(req.limit);
    if (!(limit > 0)) throw invalidArgument("limit must be a positive integer");
    const res = await topicStub(fc.worker.env, topic).fetch("https://topic/subscribe", { signal: fc.signal });
    if (!res.ok || !res.body) throw new PluginError(ResCode.UNAVAILABLE, `topic ${topic} is unavailable`);
    let received = 0;
    for await (const msg of readSubscription(res.body)) {
      if (msg === null) {
        // Sent once the topic object holds the subscription: publishing after this is seen.
        yield { data: new Uint8Array(0), desc: `subscribed to ${topic}` };
        continue;
      }
      yield { data: fromBase64(msg.data), desc: JSON.stringify({ seq: msg.seq, from: msg.from, published_at: msg.publishedAt }) };
      received += 1;
      if (received >= limit) return;
    }
  },
  async *"files.read"(data, fc) {
    const req = parseJsonData(data, invalidArgument);
    const file = await ownFile(fc, req.id);
    const chunk = req.chunk_size === undefined ? 1024 * 1024 : Number(req.chunk_size);
    if (!Number.isInteger(chunk) || chunk < 1 || chunk > MAX_CHUNK) throw invalidArgument(`chunk_size must be 1..${MAX_CHUNK}`);
    for await (const bytes of readFileChunks(fc.worker.env.FILES, file.key, chunk)) yield { data: bytes };
  },
};

import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../env";

/** One delivered message; the subscription stream is these as newline-delimited JSON. */
export interface TopicMessage {
  seq: number;
  /** The publisher's Header.From (empty for a plain user). */
  from: string;
  /** The published Data, base64. */
  data: string;
  publishedAt: number;
}

/** A subscriber this far behind (bytes queued) is dropped rather than slowing the topic down. */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;
const encoder = new TextEncoder();

/**
 * One plugin topic (DESIGN: a Durable Object per topic). Publishes are serialised by the object,
 * numbered, and written to every subscriber's stream in that order as they happen; subscribers
 * hold an open streaming response (in-memory streams: a subscription lives as long as its call).
 */
export class PluginTopic extends DurableObject<Bindings> {
  private readonly subscribers = new Set<WritableStreamDefaultWriter<Uint8Array>>();
  private seq: number;

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS topic_meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
    const row = ctx.storage.sql.exec<{ v: number }>("SELECT v FROM topic_meta WHERE k = 'seq'").toArray()[0];
    this.seq = row?.v ?? 0;
  }

  /** GET /subscribe: a stream of TopicMessage lines; the first line is {"subscribed":true}. */
  async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname !== "/subscribe") return new Response("not found", { status: 404 });
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>(undefined, undefined, {
      highWaterMark: MAX_QUEUED_BYTES,
      size: (chunk) => chunk.byteLength,
    });
    const writer = writable.getWriter();
    this.subscribers.add(writer);
    writer.closed.catch(() => this.subscribers.delete(writer));
    void writer.write(encoder.encode(`${JSON.stringify({ subscribed: true, seq: this.seq })}\n`)).catch(() => this.drop(writer));
    return new Response(readable, { headers: { "Content-Type": "application/x-ndjson" } });
  }

  /** Delivers one message to every current subscriber; returns its number and how many got it. */
  async publish(from: string, data: string): Promise<{ seq: number; delivered: number }> {
    this.seq += 1;
    this.ctx.storage.sql.exec("INSERT INTO topic_meta (k, v) VALUES ('seq', ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v", this.seq);
    const msg: TopicMessage = { seq: this.seq, from, data, publishedAt: Date.now() };
    const line = encoder.encode(`${JSON.stringify(msg)}\n`);
    let delivered = 0;
    for (const writer of this.subscribers) {
      if (writer.desiredSize !== null && writer.desiredSize < 0) {
        this.drop(writer);
        continue;
      }
      // Not awaited: one slow subscriber must not hold up the others; each writer keeps its order.
      writer.write(line).catch(() => this.drop(writer));
      delivered += 1;
    }
    return { seq: this.seq, delivered };
  }

  private drop(writer: WritableStreamDefaultWriter<Uint8Array>): void {
    if (!this.subscribers.delete(writer)) return;
    writer.abort("subscriber dropped").catch(() => {});
  }
}

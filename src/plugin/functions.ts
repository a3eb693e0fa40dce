import type { Principal } from "../credentials/principal";
import type { Db } from "../db/client";
import type { CheckedHeader } from "./envelope";
import type { WorkerContext } from "./context";

/** What a built-in function sees: the caller, the checked Header, storage. */
export interface FnContext {
  principal: Principal;
  header: CheckedHeader;
  worker: WorkerContext;
  db: Db;
  signal: AbortSignal;
}

/** A Call function: Data in, Data out; failures throw PluginError (a Res with its Code). */
export type CallFn = (data: Uint8Array, fc: FnContext) => Promise<Uint8Array>;

/** One message of a Chat stream. */
export interface ChatMessage {
  data: Uint8Array;
  desc?: string;
}
/** A Chat function: a stream of messages; a PluginError ends the stream with a Res of that Code. */
export type ChatFn = (data: Uint8Array, fc: FnContext) => AsyncIterable<ChatMessage>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A JSON value as the bytes a function's message carries. */
export function jsonData(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** Parses Data as a JSON object; anything else is Code 3. */
export function parseJsonData(data: Uint8Array, invalid: (desc: string) => Error): Record<string, unknown> {
  if (data.byteLength === 0) return {};
  let v: unknown;
  try {
    v = JSON.parse(decoder.decode(data));
  } catch {
    throw invalid("Data must be a JSON object");
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw invalid("Data must be a JSON object");
  return v as Record<string, unknown>;
}

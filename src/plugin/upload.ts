import type { FileStream } from "../gen/proto/plugin_pb";
import { invalidArgument, resourceExhausted } from "./codes";
import { concat, openSink, Sha256Stream } from "../storage/r2-stream";

/**
 * SendFile's stream rules (DESIGN, "SendFile"): every message carries the same Name, Purpose,
 * TotalSize and TotalPart; Part runs 1..TotalPart strictly in order; the Data lengths add up to
 * TotalSize; limits per file, per part and on the number of parts. The bytes go to R2 as they
 * arrive and are hashed on the way; any violation aborts the R2 upload, so nothing is kept.
 */
export interface UploadLimits {
  maxFileBytes: number;
  maxPartBytes: number;
  maxParts: number;
  /** Files up to this size go to R2 in one streaming put, larger ones in a multipart upload. */
  streamPutMaxBytes: number;
}

export interface ReceivedFile {
  name: string;
  purpose: string;
  size: number;
  sha256: string;
  /** The whole content, kept only when the Purpose must read it (reports, pipeline files). */
  content: Uint8Array | null;
}

/** Content a Purpose processes is held in memory; such files are limited to this. */
export const MAX_PROCESSED_BYTES = 16 * 1024 * 1024;
const MAX_NAME = 255;
const MAX_PURPOSE = 128;

export { R2_PART_BYTES } from "../storage/r2-stream";

/** The file a stream announces in its first message, checked against the limits. */
function announced(first: FileStream, limits: UploadLimits, keepContent: boolean) {
  const name = first.Name;
  const purpose = first.Purpose;
  const totalSize = Number(first.TotalSize);
  const totalPart = Number(first.TotalPart);
  if (name === "" || name.length > MAX_NAME || /[\u0000-\u001f/\\]/.test(name)) {
    throw invalidArgument(`Name must be 1-${MAX_NAME} characters without control characters or slashes`);
  }
  if (purpose.length > MAX_PURPOSE) throw invalidArgument(`Purpose must be at most ${MAX_PURPOSE} characters`);
  if (!Number.isSafeInteger(totalSize) || totalSize < 0) throw invalidArgument("TotalSize must be zero or more");
  if (!Number.isSafeInteger(totalPart) || totalPart < 1) throw invalidArgument("TotalPart must be at least 1");
  if (totalSize > limits.maxFileBytes) throw resourceExhausted(`TotalSize ${totalSize} exceeds the limit of ${limits.maxFileBytes} bytes per file`);
  if (totalPart > limits.maxParts) throw resourceExhausted(`TotalPart ${totalPart} exceeds the limit of ${limits.maxParts} parts`);
  if (keepContent && totalSize > MAX_PROCESSED_BYTES) {
    throw resourceExhausted(`a file with Purpose ${purpose} may be at most ${MAX_PROCESSED_BYTES} bytes`);
  }
  return { name, purpose, totalSize, totalPart };
}

/**
 * The messages of a SendFile stream, each checked against the stream rules before it is yielded
 * (and the end of the stream too): core stores them, the gateway forwards them to a plugin.
 */
export async function* checkedParts(first: FileStream, rest: AsyncIterator<FileStream>, limits: UploadLimits, keepContent = false): AsyncGenerator<FileStream> {
  const { name, purpose, totalSize, totalPart } = announced(first, limits, keepContent);
  let received = 0;
  let expected = 1;
  let msg: FileStream | undefined = first;
  while (msg) {
    if (msg.Name !== name || msg.Purpose !== purpose || Number(msg.TotalSize) !== totalSize || Number(msg.TotalPart) !== totalPart) {
      throw invalidArgument(`part ${msg.Part}: Name, Purpose, TotalSize and TotalPart must be the same on every message`);
    }
    const part = Number(msg.Part);
    if (part !== expected) {
      const why = part < expected ? (part === expected - 1 ? "repeated" : "out of order") : expected > totalPart ? "beyond TotalPart" : "a gap";
      throw invalidArgument(`expected Part ${expected}, got ${part} (${why})`);
    }
    if (part > totalPart) throw invalidArgument(`Part ${part} is beyond TotalPart ${totalPart}`);
    const len = msg.Data.byteLength;
    if (len > limits.maxPartBytes) throw resourceExhausted(`Part ${part} has ${len} bytes; the limit is ${limits.maxPartBytes} bytes per part`);
    received += len;
    if (received > totalSize) throw invalidArgument(`the parts hold more than TotalSize ${totalSize} bytes`);
    yield msg;
    expected += 1;
    const next: IteratorResult<FileStream> = await rest.next();
    msg = next.done ? undefined : next.value;
    if (msg && expected > totalPart) throw invalidArgument(`Part ${msg.Part} is beyond TotalPart ${totalPart}`);
  }
  if (expected - 1 !== totalPart) throw invalidArgument(`the stream ended after part ${expected - 1} of ${totalPart}`);
  if (received !== totalSize) throw invalidArgument(`the parts hold ${received} bytes, TotalSize says ${totalSize}`);
}

export async function receiveFile(
  first: FileStream,
  rest: AsyncIterator<FileStream>,
  opts: { bucket: R2Bucket; key: string; limits: UploadLimits; keepContent: boolean },
): Promise<ReceivedFile> {
  const { name, purpose, totalSize } = announced(first, opts.limits, opts.keepContent);
  const meta = { customMetadata: { name, purpose } };
  const sink = openSink(opts.bucket, opts.key, totalSize, opts.limits.streamPutMaxBytes, meta);
  const hash = new Sha256Stream();
  const kept: Uint8Array[] = [];
  let received = 0;
  try {
    for await (const msg of checkedParts(first, rest, opts.limits, opts.keepContent)) {
      received += msg.Data.byteLength;
      hash.update(msg.Data);
      if (opts.keepContent) kept.push(msg.Data);
      await sink.write(msg.Data);
    }
    await sink.finish();
  } catch (err) {
    hash.abort();
    await sink.abort();
    throw err;
  }
  return {
    name,
    purpose,
    size: received,
    sha256: await hash.hex(),
    content: opts.keepContent ? concat(kept, received) : null,
  };
}

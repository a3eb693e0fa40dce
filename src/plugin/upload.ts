import type { FileStream } from "../gen/proto/plugin_pb";
import { invalidArgument, resourceExhausted } from "./codes";
import { toHex } from "../crypto/random";
import { concat } from "./files";

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

/** R2 multipart parts must be at least 5 MiB (except the last) and of one size: cut at exactly this. */
export const R2_PART_BYTES = 8 * 1024 * 1024;
/** Content a Purpose processes is held in memory; such files are limited to this. */
export const MAX_PROCESSED_BYTES = 16 * 1024 * 1024;
const MAX_NAME = 255;
const MAX_PURPOSE = 128;

/**
 * Writes to R2 as the parts arrive. Up to limits.streamPutMaxBytes (64 MiB by default) the bytes flow through one
 * streaming put of exactly TotalSize bytes (nothing buffered; an aborted stream stores nothing);
 * above, a multipart upload in R2_PART_BYTES parts, one uploading while the next is received.
 */
interface Sink {
  write(data: Uint8Array): Promise<void>;
  finish(): Promise<void>;
  abort(): Promise<void>;
}

class StreamPutSink implements Sink {
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly done: Promise<unknown>;

  constructor(
    private readonly bucket: R2Bucket,
    private readonly key: string,
    size: number,
    meta: R2PutOptions,
  ) {
    const { readable, writable } = new FixedLengthStream(size);
    this.writer = writable.getWriter();
    this.writer.closed.catch(() => {});
    this.done = bucket.put(key, readable, meta);
    this.done.catch(() => {});
  }

  private pending: Promise<void> = Promise.resolve();

  /** Queues the part and returns once the previous one was taken: the next part is read meanwhile. */
  async write(data: Uint8Array): Promise<void> {
    if (data.byteLength === 0) return;
    await this.pending;
    this.pending = this.writer.write(data);
    this.pending.catch(() => {});
  }

  async finish(): Promise<void> {
    await this.pending;
    await this.writer.close();
    await this.done;
  }

  async abort(): Promise<void> {
    await this.writer.abort("upload aborted").catch(() => {});
    // The put completes by itself once TotalSize bytes went in; a violation after that (an extra
    // part) must still leave nothing behind.
    await this.done.catch(() => null);
    await this.bucket.delete(this.key);
  }
}

class MultipartSink implements Sink {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  private upload: R2MultipartUpload | null = null;
  private parts: R2UploadedPart[] = [];
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly bucket: R2Bucket,
    readonly key: string,
    private readonly meta: R2PutOptions,
  ) {}

  async write(data: Uint8Array): Promise<void> {
    this.chunks.push(data);
    this.buffered += data.byteLength;
    while (this.buffered >= R2_PART_BYTES) {
      // The received buffers are never written to again, so views into them are safe to upload.
      const all = concat(this.chunks, this.buffered);
      const rest = all.subarray(R2_PART_BYTES);
      this.chunks = rest.byteLength > 0 ? [rest] : [];
      this.buffered = rest.byteLength;
      await this.sendPart(all.subarray(0, R2_PART_BYTES));
    }
  }

  /** One part uploads while the next is being received; a second waits for the first. */
  private async sendPart(bytes: Uint8Array): Promise<void> {
    await this.inFlight;
    if (!this.upload) this.upload = await this.bucket.createMultipartUpload(this.key, this.meta);
    const upload = this.upload;
    const slot = this.parts.length;
    this.parts.push(undefined as unknown as R2UploadedPart);
    this.inFlight = upload.uploadPart(slot + 1, bytes).then((p) => {
      this.parts[slot] = p;
    });
    // Keep the rejection observed; it is rethrown by the next await of inFlight.
    this.inFlight.catch(() => {});
  }

  async finish(): Promise<void> {
    const rest = concat(this.chunks, this.buffered);
    if (!this.upload) {
      await this.bucket.put(this.key, rest, this.meta);
      return;
    }
    if (rest.byteLength > 0) await this.sendPart(rest);
    await this.inFlight;
    await this.upload.complete(this.parts);
  }

  async abort(): Promise<void> {
    await this.inFlight.catch(() => {});
    if (this.upload) await this.upload.abort().catch(() => {});
  }
}

/**
 * Incremental SHA-256 with the runtime's native DigestStream (WebCrypto's digest() is one-shot).
 * Writes are queued, not awaited, so hashing overlaps receiving; the queue keeps their order.
 */
class Sha256Stream {
  private readonly stream = new (crypto as unknown as { DigestStream: typeof DigestStream }).DigestStream("SHA-256");
  private readonly writer = this.stream.getWriter();
  private failed: unknown = null;

  constructor() {
    // An aborted upload rejects the digest; nobody waits for it then.
    this.stream.digest.catch(() => {});
  }

  update(data: Uint8Array): void {
    if (data.byteLength > 0) this.writer.write(data).catch((e: unknown) => (this.failed = e));
  }

  async hex(): Promise<string> {
    await this.writer.close();
    if (this.failed) throw this.failed;
    return toHex(new Uint8Array(await this.stream.digest));
  }

  abort(): void {
    this.writer.abort().catch(() => {});
  }
}

export async function receiveFile(
  first: FileStream,
  rest: AsyncIterator<FileStream>,
  opts: { bucket: R2Bucket; key: string; limits: UploadLimits; keepContent: boolean },
): Promise<ReceivedFile> {
  const { limits } = opts;
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
  if (opts.keepContent && totalSize > MAX_PROCESSED_BYTES) {
    throw resourceExhausted(`a file with Purpose ${purpose} may be at most ${MAX_PROCESSED_BYTES} bytes`);
  }

  const meta = { customMetadata: { name, purpose } };
  const sink: Sink =
    totalSize <= limits.streamPutMaxBytes ? new StreamPutSink(opts.bucket, opts.key, totalSize, meta) : new MultipartSink(opts.bucket, opts.key, meta);
  const hash = new Sha256Stream();
  const kept: Uint8Array[] = [];
  let received = 0;
  let expected = 1;
  try {
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
      hash.update(msg.Data);
      if (opts.keepContent) kept.push(msg.Data);
      await sink.write(msg.Data);
      expected += 1;
      const next: IteratorResult<FileStream> = await rest.next();
      msg = next.done ? undefined : next.value;
      if (msg && expected > totalPart) throw invalidArgument(`Part ${msg.Part} is beyond TotalPart ${totalPart}`);
    }
    if (expected - 1 !== totalPart) throw invalidArgument(`the stream ended after part ${expected - 1} of ${totalPart}`);
    if (received !== totalSize) throw invalidArgument(`the parts hold ${received} bytes, TotalSize says ${totalSize}`);
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

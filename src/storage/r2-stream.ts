import { toHex } from "../crypto/random";
import { AppError } from "../domain/errors";

/**
 * Streaming uploads into R2 with a streaming SHA-256, the one mechanism for every upload: SendFile
 * (src/plugin/upload.ts), generic package uploads (src/api/v4/packages.ts) and container registry
 * blobs and their chunks (src/registry/uploads.ts). Nothing is buffered beyond one R2 multipart
 * part, and a failed or aborted upload leaves nothing behind.
 */

/** Joins received chunks (one allocation; a single chunk is returned as is). */
export function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** R2 multipart parts must be at least 5 MiB (except the last) and of one size: cut at exactly this. */
export const R2_PART_BYTES = 8 * 1024 * 1024;
/**
 * Writes to R2 as the parts arrive. Up to limits.streamPutMaxBytes (64 MiB by default) the bytes flow through one
 * streaming put of exactly TotalSize bytes (nothing buffered; an aborted stream stores nothing);
 * above, a multipart upload in R2_PART_BYTES parts, one uploading while the next is received.
 */
export interface Sink {
  write(data: Uint8Array): Promise<void>;
  finish(): Promise<void>;
  abort(): Promise<void>;
}

export class StreamPutSink implements Sink {
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

export class MultipartSink implements Sink {
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
export class Sha256Stream {
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


/**
 * The sink for a file: one streaming put of exactly `size` bytes when the size is known and at most
 * `streamPutMaxBytes`, else a multipart upload (which also serves bodies of unknown length).
 */
export function openSink(bucket: R2Bucket, key: string, size: number | null, streamPutMaxBytes: number, meta: R2PutOptions): Sink {
  return size !== null && size <= streamPutMaxBytes ? new StreamPutSink(bucket, key, size, meta) : new MultipartSink(bucket, key, meta);
}

/** The body held more bytes than allowed (413 for HTTP callers). */
const uploadTooLarge = (maxBytes: number) => new AppError("too_large", `the upload exceeds ${maxBytes} bytes`, { reason: "upload_too_large", maxBytes });

/** The body ended before the declared Content-Length, or broke off (a client that gave up). */
const uploadIncomplete = (received: number, declared: number | null) =>
  new AppError("invalid", "the upload ended before the whole file was received", { reason: "upload_incomplete", received, declared });

/**
 * Streams an HTTP request body into R2 under `key`, hashing on the way. The size limit is enforced
 * while reading (a body without Content-Length, or one that lies, is cut off at maxBytes + 1); on
 * any failure the R2 object or multipart upload is removed and the error rethrown.
 */
export async function streamBodyToR2(
  body: ReadableStream<Uint8Array> | null,
  opts: {
    bucket: R2Bucket;
    key: string;
    maxBytes: number;
    declaredSize: number | null;
    streamPutMaxBytes: number;
    meta?: R2PutOptions;
    /** Called as bytes arrive (a registry upload renews its lease by it); a rejection aborts the upload. */
    onProgress?: () => Promise<void>;
  },
): Promise<{ size: number; sha256: string }> {
  if (opts.declaredSize !== null && opts.declaredSize > opts.maxBytes) throw uploadTooLarge(opts.maxBytes);
  const sink = openSink(opts.bucket, opts.key, opts.declaredSize, opts.streamPutMaxBytes, opts.meta ?? {});
  const hash = new Sha256Stream();
  let received = 0;
  const reader = body?.getReader() ?? null;
  try {
    while (reader) {
      const { done, value } = await reader.read().catch(() => {
        throw uploadIncomplete(received, opts.declaredSize);
      });
      if (done) break;
      received += value.byteLength;
      if (received > opts.maxBytes) throw uploadTooLarge(opts.maxBytes);
      if (opts.declaredSize !== null && received > opts.declaredSize) throw uploadIncomplete(received, opts.declaredSize);
      hash.update(value);
      await sink.write(value);
      if (opts.onProgress) await opts.onProgress();
    }
    if (opts.declaredSize !== null && received !== opts.declaredSize) throw uploadIncomplete(received, opts.declaredSize);
    await sink.finish();
  } catch (err) {
    hash.abort();
    await reader?.cancel().catch(() => {});
    await sink.abort();
    throw err;
  }
  return { size: received, sha256: await hash.hex() };
}

/** One stream of several R2 objects, in order (the chunks of a resumable registry upload, assembled at its end). */
export function concatObjects(bucket: R2Bucket, keys: string[]): ReadableStream<Uint8Array> {
  let i = 0;
  let current: ReadableStreamDefaultReader<Uint8Array> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (!current) {
          if (i >= keys.length) return controller.close();
          const obj = await bucket.get(keys[i++]);
          if (!obj) return controller.error(new Error("upload chunk missing"));
          current = obj.body.getReader();
        }
        const { done, value } = await current.read();
        if (!done) return controller.enqueue(value);
        current = null;
      }
    },
    cancel() {
      return current?.cancel();
    },
  });
}

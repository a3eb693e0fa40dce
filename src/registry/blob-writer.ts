import { AppError } from "../domain/errors";
import { MultipartSink, Sha256Stream, StreamPutSink, type Sink } from "../storage/r2-stream";

/** The bytes went past the blob size limit, or did not match the declared length. */
export type BlobWriteFailure = "too_large" | "length_mismatch";
const blobWriteError = (reason: BlobWriteFailure) =>
  new AppError(reason === "too_large" ? "too_large" : "invalid", reason === "too_large" ? "the blob is too large" : "the body does not match its Content-Length", { reason });

export interface WrittenObject {
  key: string;
  size: number;
  /** Hex SHA-256 of exactly the bytes written. */
  sha256: string;
}

/**
 * Streams bytes into one R2 object and hashes them on the way: a streaming put when the length is
 * known and small enough, otherwise a multipart upload. On any failure nothing is left in R2.
 */
export async function writeHashedObject(
  bucket: R2Bucket,
  key: string,
  body: ReadableStream<Uint8Array>,
  opts: { length: number | null; maxBytes: number; streamPutMaxBytes: number },
): Promise<WrittenObject> {
  if (opts.length !== null && opts.length > opts.maxBytes) {
    await body.cancel().catch(() => {});
    throw blobWriteError("too_large");
  }
  const sink: Sink = opts.length !== null && opts.length <= opts.streamPutMaxBytes ? new StreamPutSink(bucket, key, opts.length, {}) : new MultipartSink(bucket, key, {});
  const hash = new Sha256Stream();
  const reader = body.getReader();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > opts.maxBytes) throw blobWriteError("too_large");
      if (opts.length !== null && size > opts.length) throw blobWriteError("length_mismatch");
      hash.update(value);
      await sink.write(value);
    }
    if (opts.length !== null && size !== opts.length) throw blobWriteError("length_mismatch");
    await sink.finish();
  } catch (err) {
    reader.cancel().catch(() => {});
    hash.abort();
    await sink.abort();
    throw err;
  }
  return { key, size, sha256: await hash.hex() };
}

/** One stream of several R2 objects, in order (the chunks of a resumable upload). */
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

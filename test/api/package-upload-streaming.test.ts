import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { withVars } from "../../src/config";
import { toHex } from "../../src/crypto/random";
import { makeUserWithToken } from "../helpers/fixtures";
import { makeProject } from "../helpers/resources";

/**
 * Issue 8 item 8: generic package uploads stream into R2 (multipart for large files) with a
 * streaming SHA-256, the size limit is enforced while streaming (413), and a failed or aborted
 * upload leaves nothing behind.
 */
const MiB = 1024 * 1024;
const owner = await makeUserWithToken();

/** A body of `total` bytes made chunk by chunk on demand (never held whole), and its SHA-256. */
function generated(total: number, opts: { failAt?: number } = {}) {
  const digest = new (crypto as unknown as { DigestStream: typeof DigestStream }).DigestStream("SHA-256");
  const hasher = digest.getWriter();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (opts.failAt !== undefined && sent >= opts.failAt) {
        controller.error(new Error("client went away"));
        return;
      }
      if (sent >= total) {
        void hasher.close();
        controller.close();
        return;
      }
      const n = Math.min(MiB, total - sent);
      const chunk = new Uint8Array(n);
      for (let i = 0; i < n; i += 4096) chunk[i] = (sent + i) % 251;
      sent += n;
      void hasher.write(chunk.slice());
      controller.enqueue(chunk);
    },
  });
  return { body, sha256: async () => toHex(new Uint8Array(await digest.digest)) };
}

async function put(projectId: number, file: string, body: BodyInit, vars: Record<string, string> = {}, headers: Record<string, string> = {}) {
  const ctx = createExecutionContext();
  const req = new Request(`http://localhost/api/v4/projects/${projectId}/packages/generic/big/1.0.0/${file}?select=package_file`, {
    method: "PUT",
    body,
    headers: { Authorization: `Bearer ${owner.token}`, ...headers },
    duplex: "half",
  } as RequestInit);
  const res = await app.fetch(req, withVars(env, vars), ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

async function storedKeys(projectId: number): Promise<string[]> {
  return (await env.FILES.list({ prefix: `packages/${projectId}/` })).objects.map((o) => o.key);
}

async function packageCount(projectId: number): Promise<number> {
  const res = await app.fetch(new Request(`http://localhost/api/v4/projects/${projectId}/packages`, { headers: { Authorization: `Bearer ${owner.token}` } }), env, createExecutionContext());
  return ((await res.json()) as unknown[]).length;
}

describe("generic package upload streams into R2 (multipart for large files), never buffered whole", () => {
  it("a 90 MiB body without Content-Length goes through R2 multipart with its SHA-256 computed on the way", async () => {
    const project = await makeProject(owner.user.id);
    const { body, sha256 } = generated(90 * MiB);
    const res = await put(project.id, "big.bin", body);
    expect(res.status).toBe(201);
    const file = (await res.json()) as { size: number; file_sha256: string };
    expect(file.size).toBe(90 * MiB);
    expect(file.file_sha256).toBe(await sha256());
    const [key] = await storedKeys(project.id);
    const head = await env.FILES.head(key);
    expect(head?.size).toBe(90 * MiB);
    // A multipart object's etag carries the part count ("-N"): 90 MiB in 8 MiB parts is 12 parts.
    expect(head?.etag ?? "").toMatch(/-12$/);
  });

  it("a small body with Content-Length is one streaming put and downloads intact", async () => {
    const project = await makeProject(owner.user.id);
    const res = await put(project.id, "small.txt", "hello streamed package");
    expect(res.status).toBe(201);
    const file = (await res.json()) as { size: number; file_sha256: string };
    const expected = toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode("hello streamed package"))));
    expect(file).toMatchObject({ size: 22, file_sha256: expected });
    const dl = await app.fetch(new Request(`http://localhost/api/v4/projects/${project.id}/packages/generic/big/1.0.0/small.txt`, { headers: { Authorization: `Bearer ${owner.token}` } }), env, createExecutionContext());
    expect(await dl.text()).toBe("hello streamed package");
  });

  it("the size limit is enforced while streaming: 413 in REST shape and nothing kept", async () => {
    const project = await makeProject(owner.user.id);
    const { body } = generated(12 * MiB);
    const res = await put(project.id, "too-big.bin", body, { UPLOAD_MAX_FILE_BYTES: String(10 * MiB) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ message: "413 Request Entity Too Large" });
    expect(await storedKeys(project.id)).toEqual([]);
    expect(await packageCount(project.id)).toBe(0);
  });

  it("a declared Content-Length above the limit is refused before reading (413)", async () => {
    const project = await makeProject(owner.user.id);
    const res = await put(project.id, "declared.bin", "x".repeat(2048), { UPLOAD_MAX_FILE_BYTES: "1024" });
    expect(res.status).toBe(413);
    expect(await storedKeys(project.id)).toEqual([]);
  });

  it("an upload aborted by the client after R2 parts were written leaves no object and no package", async () => {
    const project = await makeProject(owner.user.id);
    const { body } = generated(40 * MiB, { failAt: 20 * MiB });
    const res = await put(project.id, "aborted.bin", body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: "400 Bad request - the upload ended before the whole file was received" });
    expect(await storedKeys(project.id)).toEqual([]);
    expect(await packageCount(project.id)).toBe(0);
  });
});

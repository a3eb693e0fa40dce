import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bytesOf, digestOf, envWith, pushableProject, pushBlob, registryCall, registryToken } from "./helpers";
import { BLOB_PREFIX, sweepAbandonedUploads } from "../../src/registry/uploads";
import { addMemberTo } from "../helpers/resources";

/** OCI distribution spec v1.1: pulling and pushing blobs (monolithic, chunked, resumable, mount). */
const committedRows = async () => (await env.DB.prepare("SELECT count(*) AS n FROM registry_blobs").first<{ n: number }>())!.n;

describe("GET /v2/ (end-1)", () => {
  it("401 with the token-service challenge without a token; 200 with one", async () => {
    const res = await registryCall("/v2/");
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="http://localhost/jwt/auth",service="container_registry"');
    expect(res.headers.get("Docker-Distribution-API-Version")).toBe("registry/2.0");
    expect(await res.json()).toEqual({ errors: [{ code: "UNAUTHORIZED", message: "authentication required", detail: null }] });
    const { token } = await pushableProject();
    expect((await registryCall("/v2/", { bearer: token })).status).toBe(200);
    expect((await registryCall("/v2/", { bearer: token.slice(0, -2) + "xx" })).status).toBe(401);
  });
  it("a repository request without a token names its scope in the challenge", async () => {
    const { name } = await pushableProject();
    const res = await registryCall(`/v2/${name}/tags/list`);
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toContain(`scope="repository:${name}:pull"`);
  });
});

describe("monolithic upload (POST ?digest=, end-4b) and blob reads (end-2)", () => {
  it("stores the bytes, then HEAD and GET (and a Range) return them with Docker-Content-Digest", async () => {
    const { name, token } = await pushableProject();
    const bytes = bytesOf("hello blob world");
    const digest = await pushBlob(name, token, bytes);
    const head = await registryCall(`/v2/${name}/blobs/${digest}`, { method: "HEAD", bearer: token });
    expect(head.status).toBe(200);
    expect(head.headers.get("Content-Length")).toBe(String(bytes.byteLength));
    expect(head.headers.get("Docker-Content-Digest")).toBe(digest);
    const get = await registryCall(`/v2/${name}/blobs/${digest}`, { bearer: token });
    expect(new TextDecoder().decode(await get.arrayBuffer())).toBe("hello blob world");
    const range = await registryCall(`/v2/${name}/blobs/${digest}`, { bearer: token, headers: { Range: "bytes=6-9" } });
    expect(range.status).toBe(206);
    expect(new TextDecoder().decode(await range.arrayBuffer())).toBe("blob");
  });
  it("a wrong digest is DIGEST_INVALID (400) and nothing is committed or left in R2", async () => {
    const { name, token } = await pushableProject();
    const before = await committedRows();
    const objects = (await env.FILES.list({ prefix: "registry/blobs/" })).objects.length;
    const wrong = await digestOf(bytesOf("other"));
    const res = await registryCall(`/v2/${name}/blobs/uploads/?digest=${wrong}`, { method: "POST", bearer: token, body: bytesOf("content") });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).errors[0].code).toBe("DIGEST_INVALID");
    expect(await committedRows()).toBe(before);
    expect((await env.FILES.list({ prefix: "registry/blobs/" })).objects.length).toBe(objects);
    expect((await registryCall(`/v2/${name}/blobs/${wrong}`, { method: "HEAD", bearer: token })).status).toBe(404);
  });
  it("a malformed digest is DIGEST_INVALID; an unknown blob BLOB_UNKNOWN (404)", async () => {
    const { name, token } = await pushableProject();
    expect((await registryCall(`/v2/${name}/blobs/sha256:xyz`, { bearer: token })).status).toBe(400);
    const res = await registryCall(`/v2/${name}/blobs/${await digestOf(bytesOf("never pushed"))}`, { bearer: token });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).errors[0].code).toBe("BLOB_UNKNOWN");
  });
  it("a blob of another repository is not readable here (blobs are linked per repository)", async () => {
    const a = await pushableProject();
    const b = await pushableProject();
    const digest = await pushBlob(a.name, a.token, bytesOf("private layer of a"));
    expect((await registryCall(`/v2/${b.name}/blobs/${digest}`, { method: "HEAD", bearer: b.token })).status).toBe(404);
  });
  it("over the size limit: 413 SIZE_INVALID, nothing kept", async () => {
    const { name, token } = await pushableProject();
    const small = envWith({ REGISTRY_MAX_BLOB_BYTES: "8" });
    const bytes = bytesOf("more than eight bytes");
    const digest = await digestOf(bytes);
    const before = await committedRows();
    const objects = (await env.FILES.list({ prefix: BLOB_PREFIX })).objects.length;
    const res = await registryCall(`/v2/${name}/blobs/uploads/?digest=${digest}`, { method: "POST", bearer: token, body: bytes, env: small });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).errors[0].code).toBe("SIZE_INVALID");
    // Nothing kept: no blob row, no object in R2, no upload session, and the blob is unknown.
    expect(await committedRows()).toBe(before);
    expect((await env.FILES.list({ prefix: BLOB_PREFIX })).objects.length).toBe(objects);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM registry_uploads WHERE repository_path = ?").bind(name).first<{ n: number }>())!.n).toBe(0);
    expect((await registryCall(`/v2/${name}/blobs/${digest}`, { method: "HEAD", bearer: token })).status).toBe(404);
  });
});

describe("POST then PUT, and chunked PATCH uploads (end-4a, end-5, end-6)", () => {
  async function start(name: string, token: string) {
    const res = await registryCall(`/v2/${name}/blobs/uploads/`, { method: "POST", bearer: token });
    expect(res.status).toBe(202);
    expect(res.headers.get("Range")).toBe("0-0");
    return res.headers.get("Location")!;
  }
  it("POST then a monolithic PUT with the body", async () => {
    const { name, token } = await pushableProject();
    const location = await start(name, token);
    const bytes = bytesOf("put in one go");
    const digest = await digestOf(bytes);
    const res = await registryCall(`${location}?digest=${digest}`, { method: "PUT", bearer: token, body: bytes });
    expect(res.status).toBe(201);
    expect(res.headers.get("Location")).toBe(`/v2/${name}/blobs/${digest}`);
    expect(new TextDecoder().decode(await (await registryCall(`/v2/${name}/blobs/${digest}`, { bearer: token })).arrayBuffer())).toBe("put in one go");
  });
  it("three PATCH chunks with Content-Range, a status GET between them, then PUT ?digest=", async () => {
    const { name, token } = await pushableProject();
    const location = await start(name, token);
    const parts = ["first-", "second-", "third"];
    let offset = 0;
    for (const p of parts) {
      const b = bytesOf(p);
      const res = await registryCall(location, { method: "PATCH", bearer: token, body: b, headers: { "Content-Range": `${offset}-${offset + b.byteLength - 1}`, "Content-Length": String(b.byteLength) } });
      expect(res.status).toBe(202);
      offset += b.byteLength;
      expect(res.headers.get("Range")).toBe(`0-${offset - 1}`);
      const status = await registryCall(location, { bearer: token });
      expect(status.status).toBe(204);
      expect(status.headers.get("Range")).toBe(`0-${offset - 1}`);
    }
    const digest = await digestOf(bytesOf(parts.join("")));
    const done = await registryCall(`${location}?digest=${digest}`, { method: "PUT", bearer: token });
    expect(done.status).toBe(201);
    expect(new TextDecoder().decode(await (await registryCall(`/v2/${name}/blobs/${digest}`, { bearer: token })).arrayBuffer())).toBe(parts.join(""));
    // The session is gone once committed, and its chunk objects with it.
    expect((await registryCall(location, { bearer: token })).status).toBe(404);
  });
  it("a chunk out of order is 416 RANGE_INVALID with the current Range; the upload then resumes", async () => {
    const { name, token } = await pushableProject();
    const location = await start(name, token);
    await registryCall(location, { method: "PATCH", bearer: token, body: bytesOf("abc"), headers: { "Content-Range": "0-2" } });
    const res = await registryCall(location, { method: "PATCH", bearer: token, body: bytesOf("xyz"), headers: { "Content-Range": "5-7" } });
    expect(res.status).toBe(416);
    expect(res.headers.get("Range")).toBe("0-2");
    expect(((await res.json()) as any).errors[0].code).toBe("RANGE_INVALID");
    expect((await registryCall(location, { method: "PATCH", bearer: token, body: bytesOf("def"), headers: { "Content-Range": "3-5" } })).status).toBe(202);
    expect((await registryCall(`${location}?digest=${await digestOf(bytesOf("abcdef"))}`, { method: "PUT", bearer: token })).status).toBe(201);
  });
  it("a digest mismatch at PUT fails the upload and leaves no chunk behind", async () => {
    const { name, token } = await pushableProject();
    const location = await start(name, token);
    const id = location.split("/").pop()!;
    await registryCall(location, { method: "PATCH", bearer: token, body: bytesOf("one") });
    await registryCall(location, { method: "PATCH", bearer: token, body: bytesOf("two") });
    const res = await registryCall(`${location}?digest=${await digestOf(bytesOf("not it"))}`, { method: "PUT", bearer: token });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).errors[0].code).toBe("DIGEST_INVALID");
    expect((await env.FILES.list({ prefix: `registry/blobs/${id}` })).objects).toEqual([]);
    expect((await registryCall(location, { bearer: token })).status).toBe(404);
  });
  it("PUT without a digest is DIGEST_INVALID; an unknown session BLOB_UPLOAD_UNKNOWN; DELETE cancels", async () => {
    const { name, token } = await pushableProject();
    const location = await start(name, token);
    expect((await registryCall(location, { method: "PUT", bearer: token })).status).toBe(400);
    expect((await registryCall(`/v2/${name}/blobs/uploads/${crypto.randomUUID()}`, { method: "PATCH", bearer: token, body: bytesOf("x") })).status).toBe(404);
    expect((await registryCall(location, { method: "DELETE", bearer: token })).status).toBe(204);
    expect((await registryCall(location, { bearer: token })).status).toBe(404);
  });
  it("a session belongs to its repository", async () => {
    const a = await pushableProject();
    const b = await pushableProject();
    const location = await start(a.name, a.token);
    const id = location.split("/").pop();
    expect((await registryCall(`/v2/${b.name}/blobs/uploads/${id}`, { bearer: b.token })).status).toBe(404);
  });
  it("large chunks go through an R2 multipart upload (parts of 8 MiB) and come back byte for byte", async () => {
    const { name, token } = await pushableProject();
    const location = await start(name, token);
    const big = new Uint8Array(12 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
    const digest = await digestOf(big);
    // A streaming put is used up to UPLOAD_STREAM_PUT_MAX_BYTES; set it low so this chunk is multipart.
    const res = await registryCall(`${location}?digest=${digest}`, { method: "PUT", bearer: token, body: big, env: envWith({ UPLOAD_STREAM_PUT_MAX_BYTES: "1048576" }) });
    expect(res.status).toBe(201);
    const back = new Uint8Array(await (await registryCall(`/v2/${name}/blobs/${digest}`, { bearer: token })).arrayBuffer());
    expect(back.byteLength).toBe(big.byteLength);
    expect(await digestOf(back)).toBe(digest);
  });
});

describe("cross-repository mount (end-11)", () => {
  it("mounts a blob from a repository the token may pull; otherwise starts a plain upload (202)", async () => {
    const a = await pushableProject();
    const digest = await pushBlob(a.name, a.token, bytesOf("shared base layer"));
    const b = await pushableProject();
    // b's token names nothing on a: the mount is not done, a normal upload session starts.
    const plain = await registryCall(`/v2/${b.name}/blobs/uploads/?mount=${digest}&from=${a.name}`, { method: "POST", bearer: b.token });
    expect(plain.status).toBe(202);
    expect((await registryCall(`/v2/${b.name}/blobs/${digest}`, { method: "HEAD", bearer: b.token })).status).toBe(404);
    // A developer of both projects holds one token naming both repositories: mounted, 201.
    await addMemberTo("project", b.project.id, a.dev.id, 30);
    const both = await registryToken([`repository:${b.name}:pull,push`, `repository:${a.name}:pull`], a.auth);
    const mounted = await registryCall(`/v2/${b.name}/blobs/uploads/?mount=${digest}&from=${a.name}`, { method: "POST", bearer: both });
    expect(mounted.status).toBe(201);
    expect(mounted.headers.get("Location")).toBe(`/v2/${b.name}/blobs/${digest}`);
    expect(mounted.headers.get("Docker-Content-Digest")).toBe(digest);
    expect((await registryCall(`/v2/${b.name}/blobs/${digest}`, { method: "HEAD", bearer: both })).status).toBe(200);
  });
});

describe("push refused without push rights", () => {
  it("a read-only token's push is 403 DENIED; a token naming another repository gets the 401 challenge", async () => {
    const readOnly = await pushableProject({ scopes: ["read_registry"] });
    const res = await registryCall(`/v2/${readOnly.name}/blobs/uploads/`, { method: "POST", bearer: readOnly.token });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).errors[0].code).toBe("DENIED");
    const other = await pushableProject();
    const elsewhere = await registryCall(`/v2/${other.name}/blobs/uploads/`, { method: "POST", bearer: readOnly.token });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get("WWW-Authenticate")).toContain(`scope="repository:${other.name}:pull,push"`);
  });
});

describe("the sweep of abandoned uploads", () => {
  it("removes sessions and chunk objects untouched for REGISTRY_UPLOAD_TTL_SECONDS, and orphan objects", async () => {
    const { name, token } = await pushableProject();
    const res = await registryCall(`/v2/${name}/blobs/uploads/`, { method: "POST", bearer: token });
    const location = res.headers.get("Location")!;
    const id = location.split("/").pop()!;
    await registryCall(location, { method: "PATCH", bearer: token, body: bytesOf("abandoned bytes") });
    const lonely = await pushBlob(name, token, bytesOf(`never referenced ${id}`));
    await env.FILES.put("registry/blobs/orphan-from-a-dead-request", "x");
    expect((await env.FILES.list({ prefix: `registry/blobs/${id}` })).objects.length).toBe(1);
    const swept = await sweepAbandonedUploads(env, Date.now() + 2 * 86400_000);
    expect(swept.sessions).toBeGreaterThanOrEqual(1);
    expect(swept.unreferenced).toBeGreaterThanOrEqual(1);
    expect((await env.FILES.list({ prefix: `registry/blobs/${id}` })).objects).toEqual([]);
    expect(await env.FILES.head("registry/blobs/orphan-from-a-dead-request")).toBeNull();
    expect((await registryCall(location, { bearer: token })).status).toBe(404);
    expect((await registryCall(`/v2/${name}/blobs/${lonely}`, { method: "HEAD", bearer: token })).status).toBe(404);
  });
});

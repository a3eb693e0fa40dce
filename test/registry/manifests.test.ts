import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, makePat, TEST_PASSWORD } from "../helpers/fixtures";
import { oauthToken } from "../helpers/password-grant";
import { basicAuth, bytesOf, digestOf, envWith, registryToken, pushableProject, pushBlob, pushImage, putManifest, registryCall } from "./helpers";

/** OCI distribution spec v1.1: manifests (end-3, end-7, end-9), tags (end-8) and deletes; GitLab's REST view of them. */
const errorCode = async (res: Response) => ((await res.json()) as { errors: { code: string }[] }).errors[0].code;

describe("manifests by tag and by digest", () => {
  it("PUT under a tag, then GET and HEAD by tag and by digest return the exact bytes and headers", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "v1", ["layer-a", "layer-b"]);
    for (const ref of ["v1", img.digest]) {
      const res = await registryCall(`/v2/${name}/manifests/${ref}`, { bearer: token, headers: { Accept: "application/vnd.oci.image.manifest.v1+json" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toBe("application/vnd.oci.image.manifest.v1+json");
      expect(res.headers.get("Docker-Content-Digest")).toBe(img.digest);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(img.bytes);
      const head = await registryCall(`/v2/${name}/manifests/${ref}`, { method: "HEAD", bearer: token });
      expect(head.headers.get("Content-Length")).toBe(String(img.bytes.byteLength));
    }
  });
  it("PUT by digest must match the bytes (DIGEST_INVALID otherwise)", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "base");
    expect((await putManifest(name, token, img.digest, img.bytes)).status).toBe(201);
    const res = await putManifest(name, token, await digestOf(bytesOf("x")), img.bytes);
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe("DIGEST_INVALID");
  });
  it("every referenced blob must exist in the repository (MANIFEST_BLOB_UNKNOWN)", async () => {
    const { name, token } = await pushableProject();
    const config = await pushBlob(name, token, bytesOf("{}"));
    const manifest = { schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json", config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: config, size: 2 }, layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", digest: await digestOf(bytesOf("missing")), size: 7 }] };
    const res = await putManifest(name, token, "t", bytesOf(JSON.stringify(manifest)));
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe("MANIFEST_BLOB_UNKNOWN");
  });
  it("wrong media types: schema 1 is UNSUPPORTED (415); a Content-Type that contradicts mediaType is MANIFEST_INVALID; bad JSON MANIFEST_INVALID", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "ok");
    const v1 = await putManifest(name, token, "old", bytesOf(JSON.stringify({ schemaVersion: 1, name, tag: "old" })), "application/vnd.docker.distribution.manifest.v1+prettyjws");
    expect(v1.status).toBe(415);
    expect(await errorCode(v1)).toBe("UNSUPPORTED");
    const mismatch = await putManifest(name, token, "mm", img.bytes, "application/vnd.docker.distribution.manifest.v2+json");
    expect(mismatch.status).toBe(400);
    expect(await errorCode(mismatch)).toBe("MANIFEST_INVALID");
    expect(await errorCode(await putManifest(name, token, "bad", bytesOf("{not json")))).toBe("MANIFEST_INVALID");
  });
  it("a manifest over REGISTRY_MAX_MANIFEST_BYTES is 413", async () => {
    const { name, token } = await pushableProject();
    const res = await registryCall(`/v2/${name}/manifests/big`, { method: "PUT", bearer: token, body: bytesOf("x".repeat(100)), headers: { "Content-Type": "application/vnd.oci.image.manifest.v1+json" }, env: envWith({ REGISTRY_MAX_MANIFEST_BYTES: "50" }) });
    expect(res.status).toBe(413);
  });
  it("an unknown tag is MANIFEST_UNKNOWN (404); an unknown repository NAME_UNKNOWN", async () => {
    const { name, token } = await pushableProject();
    await pushImage(name, token, "exists");
    const res = await registryCall(`/v2/${name}/manifests/nope`, { bearer: token });
    expect(res.status).toBe(404);
    expect(await errorCode(res)).toBe("MANIFEST_UNKNOWN");
    const fresh = await pushableProject();
    const tags = await registryCall(`/v2/${fresh.name}/tags/list`, { bearer: fresh.token });
    expect(tags.status).toBe(404);
    expect(await errorCode(tags)).toBe("NAME_UNKNOWN");
  });
  it("Docker v2 schema 2 manifests and manifest lists, and an OCI index whose children must exist", async () => {
    const { name, token } = await pushableProject();
    const config = bytesOf('{"os":"linux"}');
    const layer = bytesOf("docker layer");
    const docker = {
      schemaVersion: 2,
      mediaType: "application/vnd.docker.distribution.manifest.v2+json",
      config: { mediaType: "application/vnd.docker.container.image.v1+json", digest: await pushBlob(name, token, config), size: config.byteLength },
      layers: [{ mediaType: "application/vnd.docker.image.rootfs.diff.tar.gzip", digest: await pushBlob(name, token, layer), size: layer.byteLength }],
    };
    const dockerBytes = bytesOf(JSON.stringify(docker));
    expect((await putManifest(name, token, "docker", dockerBytes, docker.mediaType)).status).toBe(201);
    const child = { mediaType: docker.mediaType, digest: await digestOf(dockerBytes), size: dockerBytes.byteLength, platform: { os: "linux", architecture: "amd64" } };
    const list = { schemaVersion: 2, mediaType: "application/vnd.docker.distribution.manifest.list.v2+json", manifests: [child] };
    expect((await putManifest(name, token, "multi", bytesOf(JSON.stringify(list)), list.mediaType)).status).toBe(201);
    const index = { schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json", manifests: [{ ...child, digest: await digestOf(bytesOf("absent")) }] };
    const res = await putManifest(name, token, "broken-index", bytesOf(JSON.stringify(index)), index.mediaType);
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe("MANIFEST_BLOB_UNKNOWN");
    const got = await registryCall(`/v2/${name}/manifests/multi`, { bearer: token });
    expect(got.headers.get("Content-Type")).toBe(list.mediaType);
  });
});

describe("tags/list with n and last (end-8a, end-8b)", () => {
  it("lists in lexical order, pages with n and last, and links the next page", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "b");
    for (const t of ["a", "c", "d"]) expect((await putManifest(name, token, t, img.bytes)).status).toBe(201);
    expect(await (await registryCall(`/v2/${name}/tags/list`, { bearer: token })).json()).toEqual({ name, tags: ["a", "b", "c", "d"] });
    const first = await registryCall(`/v2/${name}/tags/list?n=2`, { bearer: token });
    expect(await first.json()).toEqual({ name, tags: ["a", "b"] });
    expect(first.headers.get("Link")).toBe(`</v2/${name}/tags/list?n=2&last=b>; rel="next"`);
    const second = await registryCall(`/v2/${name}/tags/list?n=2&last=b`, { bearer: token });
    expect(await second.json()).toEqual({ name, tags: ["c", "d"] });
    expect(second.headers.get("Link")).toBeNull();
    expect(await (await registryCall(`/v2/${name}/tags/list?n=0`, { bearer: token })).json()).toEqual({ name, tags: [] });
    expect((await registryCall(`/v2/${name}/tags/list?n=-1`, { bearer: token })).status).toBe(400);
  });
});

describe("concurrent pushes of the same tag", () => {
  it("ten different manifests pushed to one tag at once: all succeed and the tag names one complete manifest", async () => {
    const { name, token } = await pushableProject();
    const base = await pushImage(name, token, "seed");
    const variants = Array.from({ length: 10 }, (_, i) => bytesOf(JSON.stringify({ ...base.manifest, annotations: { variant: String(i) } })));
    const results = await Promise.all(variants.map((b) => putManifest(name, token, "latest", b)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    const got = await registryCall(`/v2/${name}/manifests/latest`, { bearer: token });
    const bytes = new Uint8Array(await got.arrayBuffer());
    expect(await digestOf(bytes)).toBe(got.headers.get("Docker-Content-Digest"));
    expect(variants.some((v) => JSON.stringify([...v]) === JSON.stringify([...bytes]))).toBe(true);
    const { tags } = (await (await registryCall(`/v2/${name}/tags/list`, { bearer: token })).json()) as { tags: string[] };
    expect(tags).toEqual(["latest", "seed"]);
  });
});

describe("deletion and collection", () => {
  const blobCount = async (digests: string[]) =>
    (await env.DB.prepare(`SELECT count(*) AS n FROM registry_blobs WHERE digest IN (${digests.map(() => "?").join(",")})`).bind(...digests).first<{ n: number }>())!.n;

  it("DELETE by digest removes the manifest and its tags; blobs no manifest references are collected, shared ones kept", async () => {
    const { name, token } = await pushableProject();
    const keep = await pushImage(name, token, "keep", ["shared-layer"]);
    const gone = await pushImage(name, token, "gone", ["shared-layer", "own-layer"]);
    const own = gone.layerDigests[1];
    expect((await registryCall(`/v2/${name}/manifests/${gone.digest}`, { method: "DELETE", bearer: token })).status).toBe(202);
    expect((await registryCall(`/v2/${name}/manifests/gone`, { bearer: token })).status).toBe(404);
    expect(await blobCount([own, gone.configDigest])).toBe(0);
    expect(await blobCount([keep.layerDigests[0]])).toBe(1);
    expect((await registryCall(`/v2/${name}/blobs/${keep.layerDigests[0]}`, { method: "HEAD", bearer: token })).status).toBe(200);
    expect((await registryCall(`/v2/${name}/manifests/${gone.digest}`, { method: "DELETE", bearer: token })).status).toBe(404);
  });
  it("DELETE by tag removes the tag only while another tag names the manifest", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "one");
    await putManifest(name, token, "two", img.bytes);
    expect((await registryCall(`/v2/${name}/manifests/one`, { method: "DELETE", bearer: token })).status).toBe(202);
    expect((await registryCall(`/v2/${name}/manifests/${img.digest}`, { bearer: token })).status).toBe(200);
    expect((await registryCall(`/v2/${name}/manifests/two`, { method: "DELETE", bearer: token })).status).toBe(202);
    expect((await registryCall(`/v2/${name}/manifests/${img.digest}`, { bearer: token })).status).toBe(404);
  });
  it("a deploy-token-like pull-only token may not delete (403)", async () => {
    const writer = await pushableProject();
    await pushImage(writer.name, writer.token, "x");
    const reader = await pushableProject({ scopes: ["read_registry"] });
    const res = await registryCall(`/v2/${reader.name}/manifests/x`, { method: "DELETE", bearer: reader.token });
    expect(res.status).toBe(403);
  });
});

describe("registry REST API on real data (spec: OAuth tokens may get, list and delete)", () => {
  it("a pushed image appears with GitLab's fields; deleting a tag and the repository through the API (OAuth token) removes them from /v2/ at once", async () => {
    const { name, project, owner } = await pushableProject();
    // The group's owner pushes the root image and an image below it, with one token for both.
    const ownerAuth = basicAuth(owner.username, await makePat(owner.id, ["api"]));
    const token = await registryToken([`repository:${name}:pull,push`, `repository:${name}/sub:pull,push`], ownerAuth);
    const img = await pushImage(name, token, "v1", ["rest-layer"]);
    await pushImage(`${name}/sub`, token, "edge");
    const oauth = await oauthToken(owner.username, TEST_PASSWORD);
    const list = (await (await call(`/api/v4/projects/${project.id}/registry/repositories?tags=true&tags_count=true`, { token: oauth })).json()) as Record<string, any>[];
    expect(list.map((r) => r.path).sort()).toEqual([name, `${name}/sub`]);
    const root = list.find((r) => r.path === name)!;
    expect(root).toMatchObject({ name: "", path: name, project_id: project.id, location: `localhost/${name}`, tags_count: 1, tags: [{ name: "v1", path: `${name}:v1`, location: `localhost/${name}:v1` }] });
    const tag = (await (await call(`/api/v4/projects/${project.id}/registry/repositories/${root.id}/tags/v1`, { token: oauth })).json()) as Record<string, any>;
    expect(tag).toMatchObject({ name: "v1", digest: img.digest, revision: img.configDigest.slice(7), short_revision: img.configDigest.slice(7, 16), total_size: img.totalSize });
    expect((await (await call(`/api/v4/registry/repositories/${root.id}?size=true&tag_count=true`, { token: oauth })).json()) as Record<string, any>).toMatchObject({ size: img.totalSize, tags_count: 1 });
    expect((await call(`/api/v4/projects/${project.id}/registry/repositories/${root.id}/tags/v1`, { method: "DELETE", token: oauth })).status).toBe(200);
    expect((await registryCall(`/v2/${name}/manifests/v1`, { bearer: token })).status).toBe(404);
    expect((await registryCall(`/v2/${name}/manifests/${img.digest}`, { bearer: token })).status).toBe(404);
    expect((await registryCall(`/v2/${name}/blobs/${img.layerDigests[0]}`, { method: "HEAD", bearer: token })).status).toBe(404);
    const sub = list.find((r) => r.path === `${name}/sub`)!;
    expect((await call(`/api/v4/projects/${project.id}/registry/repositories/${sub.id}`, { method: "DELETE", token: oauth })).status).toBe(202);
    const gone = await registryCall(`/v2/${name}/sub/tags/list`, { bearer: token });
    expect(gone.status).toBe(404);
    expect(await errorCode(gone)).toBe("NAME_UNKNOWN");
  });
});

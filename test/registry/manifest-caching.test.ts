import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { manifestCacheStats } from "../../src/storage/manifest-cache";
import { envWith, pushableProject, pushImage, registryCall, registryToken } from "./helpers";

/**
 * docs/registries.md "Manifests by digest": a manifest named by its digest never changes, so it is
 * served as immutable (RFC 9111 §5.2.2, RFC 8246 `immutable`; RFC 9110 §13.1.2 conditional GET),
 * cached by shared caches only when anyone may pull it, and answered from the isolate's bounded
 * cache without a D1 read.
 */
const OCI = { Accept: "application/vnd.oci.image.manifest.v1+json" };

describe("a manifest by digest is immutable", () => {
  it("GET and HEAD by digest: a strong ETag equal to the digest, and a private repository's answer is private, long-lived and immutable", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "v1");
    for (const method of ["GET", "HEAD"]) {
      const res = await registryCall(`/v2/${name}/manifests/${img.digest}`, { method, bearer: token, headers: OCI });
      expect(res.status).toBe(200);
      expect(res.headers.get("ETag")).toBe(`"${img.digest}"`);
      expect(res.headers.get("Cache-Control")).toBe("private, max-age=31536000, immutable");
    }
  });
  it("anonymous pull of a public project's manifest by digest is public and immutable: any shared cache may keep it", async () => {
    const { name, token } = await pushableProject({ visibility: "public" });
    const img = await pushImage(name, token, "v1");
    const anonymous = await registryToken([`repository:${name}:pull`]);
    const res = await registryCall(`/v2/${name}/manifests/${img.digest}`, { bearer: anonymous, headers: OCI });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(img.bytes);
  });
  it("by tag the manifest may change at the next push: the digest's ETag but Cache-Control no-cache, never immutable", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "latest");
    const res = await registryCall(`/v2/${name}/manifests/latest`, { bearer: token, headers: OCI });
    expect(res.headers.get("ETag")).toBe(`"${img.digest}"`);
    expect(res.headers.get("Cache-Control")).toBe("no-cache");
  });
  it("RFC 9110 §13.1.2: If-None-Match naming the current digest is 304 without a body, by digest and by tag; another ETag is 200 with the bytes", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "v1");
    for (const ref of [img.digest, "v1"]) {
      for (const method of ["GET", "HEAD"]) {
        const hit = await registryCall(`/v2/${name}/manifests/${ref}`, { method, bearer: token, headers: { ...OCI, "If-None-Match": `W/"other", "${img.digest}"` } });
        expect(hit.status).toBe(304);
        expect(hit.headers.get("ETag")).toBe(`"${img.digest}"`);
        expect(await hit.text()).toBe("");
      }
      const miss = await registryCall(`/v2/${name}/manifests/${ref}`, { bearer: token, headers: { ...OCI, "If-None-Match": '"sha256:0000"' } });
      expect(miss.status).toBe(200);
      expect(new Uint8Array(await miss.arrayBuffer())).toEqual(img.bytes);
    }
  });
  it("a conditional request still needs pull access: without a token it is 401, whatever it names", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "v1");
    const res = await registryCall(`/v2/${name}/manifests/${img.digest}`, { headers: { ...OCI, "If-None-Match": `"${img.digest}"` } });
    expect(res.status).toBe(401);
  });
  it("a 304 for a digest the repository never held is impossible: an unknown digest is 404 MANIFEST_UNKNOWN even when If-None-Match names it", async () => {
    const { name, token } = await pushableProject();
    await pushImage(name, token, "v1");
    const unknown = `sha256:${"a".repeat(64)}`;
    const res = await registryCall(`/v2/${name}/manifests/${unknown}`, { bearer: token, headers: { ...OCI, "If-None-Match": `"${unknown}"` } });
    expect(res.status).toBe(404);
  });
});

describe("the isolate's manifest cache (bounded like the validation cache)", () => {
  // The test configuration turns the caches off (vitest.config.ts); these tests turn this one on.
  const on = envWith({ VALIDATION_CACHE_SECONDS: "30" });
  it("a GET by digest seen once is answered without reading D1: the row removed behind the service's back is still served within VALIDATION_CACHE_SECONDS", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "v1");
    expect((await registryCall(`/v2/${name}/manifests/${img.digest}`, { bearer: token, headers: OCI, env: on })).status).toBe(200);
    await env.DB.prepare("DELETE FROM registry_manifests WHERE digest = ?").bind(img.digest).run();
    const hits = manifestCacheStats.hits;
    const res = await registryCall(`/v2/${name}/manifests/${img.digest}`, { bearer: token, headers: OCI, env: on });
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(img.bytes);
    expect(manifestCacheStats.hits).toBe(hits + 1);
  });
  it("VALIDATION_CACHE_SECONDS=0 turns it off: every GET by digest reads D1", async () => {
    const off = envWith({ VALIDATION_CACHE_SECONDS: "0" });
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "v1");
    expect((await registryCall(`/v2/${name}/manifests/${img.digest}`, { bearer: token, headers: OCI, env: off })).status).toBe(200);
    await env.DB.prepare("DELETE FROM registry_manifests WHERE digest = ?").bind(img.digest).run();
    expect((await registryCall(`/v2/${name}/manifests/${img.digest}`, { bearer: token, headers: OCI, env: off })).status).toBe(404);
  });
  it("a delete through this isolate forgets at once: GET by digest after DELETE of the manifest is 404", async () => {
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "v1");
    expect((await registryCall(`/v2/${name}/manifests/${img.digest}`, { bearer: token, headers: OCI, env: on })).status).toBe(200);
    expect((await registryCall(`/v2/${name}/manifests/${img.digest}`, { method: "DELETE", bearer: token, env: on })).status).toBe(202);
    expect((await registryCall(`/v2/${name}/manifests/${img.digest}`, { bearer: token, headers: OCI, env: on })).status).toBe(404);
  });
  it("an entry lives no longer than the bound: once VALIDATION_CACHE_SECONDS have passed the next GET reads D1 again", async () => {
    const short = envWith({ VALIDATION_CACHE_SECONDS: "1" });
    const { name, token } = await pushableProject();
    const img = await pushImage(name, token, "v1");
    expect((await registryCall(`/v2/${name}/manifests/${img.digest}`, { bearer: token, headers: OCI, env: short })).status).toBe(200);
    await env.DB.prepare("DELETE FROM registry_manifests WHERE digest = ?").bind(img.digest).run();
    await new Promise((r) => setTimeout(r, 1100));
    expect((await registryCall(`/v2/${name}/manifests/${img.digest}`, { bearer: token, headers: OCI, env: short })).status).toBe(404);
  });
});

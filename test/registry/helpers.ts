import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import app from "../../src/app";
import { withVars } from "../../src/config";
import type { Bindings } from "../../src/env";
import { sha256Hex } from "../../src/crypto/hash";
import { makeUser, makePat, unique } from "../helpers/fixtures";
import { addMemberTo, makeGroup, makeProject } from "../helpers/resources";

/** Registry clients for the tests: the token dance of a Docker client, then /v2/ calls. */
export const basicAuth = (user: string, password: string) => `Basic ${btoa(`${user}:${password}`)}`;

export async function registryCall(path: string, init: RequestInit & { bearer?: string; env?: Bindings } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.bearer) headers.set("Authorization", `Bearer ${init.bearer}`);
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`http://localhost${path}`, { ...init, headers }), init.env ?? env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** GET /jwt/auth with Basic credentials (or none) for the scopes; the whole response. */
export function tokenResponse(scopes: string[], auth?: string): Promise<Response> {
  const q = new URLSearchParams({ service: "container_registry" });
  for (const s of scopes) q.append("scope", s);
  return registryCall(`/jwt/auth?${q}`, { headers: auth ? { Authorization: auth } : {} });
}

export async function registryToken(scopes: string[], auth?: string): Promise<string> {
  const res = await tokenResponse(scopes, auth);
  if (res.status !== 200) throw new Error(`token service answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/** The claims of a registry JWT (the payload, unverified: the tests read what was granted). */
export function claimsOf(token: string): { access: { name: string; actions: string[] }[]; exp: number; iat: number; sub: string } {
  const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(payload + "=".repeat((4 - (payload.length % 4)) % 4)));
}

export const bytesOf = (s: string) => new TextEncoder().encode(s);
export const digestOf = async (b: Uint8Array<ArrayBuffer>) => `sha256:${await sha256Hex(b)}`;

/** A project with a developer who holds a write_registry PAT; the repository name is the project path. */
export async function pushableProject(opts: { visibility?: string; scopes?: string[] } = {}) {
  const owner = await makeUser();
  const group = await makeGroup(owner.id, { visibility: opts.visibility ?? "private" });
  const project = await makeProject(owner.id, { groupId: group.id, groupPath: group.fullPath, visibility: opts.visibility ?? "private" });
  const dev = await makeUser();
  await addMemberTo("project", project.id, dev.id, 30);
  const pat = await makePat(dev.id, opts.scopes ?? ["write_registry"]);
  const name = project.pathWithNamespace.toLowerCase();
  const auth = basicAuth(dev.username, pat);
  const token = await registryToken([`repository:${name}:pull,push,delete`], auth);
  return { owner, group, project, dev, pat, name, auth, token };
}

/** Monolithic blob push (POST ?digest= with the body). */
export async function pushBlob(name: string, token: string, bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await digestOf(bytes);
  const res = await registryCall(`/v2/${name}/blobs/uploads/?digest=${digest}`, { method: "POST", bearer: token, body: bytes, headers: { "Content-Length": String(bytes.byteLength) } });
  if (res.status !== 201) throw new Error(`blob push answered ${res.status}: ${await res.text()}`);
  return digest;
}

/** An OCI image (config + layers) pushed under a tag; returns the manifest, its bytes and digest. */
export async function pushImage(name: string, token: string, tag: string, layers: string[] = [unique("layer")]) {
  const config = bytesOf(JSON.stringify({ architecture: "amd64", os: "linux", rootfs: { type: "layers", diff_ids: [] }, id: unique("cfg") }));
  const configDigest = await pushBlob(name, token, config);
  const layerDescs = [];
  for (const l of layers) {
    const b = bytesOf(l);
    layerDescs.push({ mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: await pushBlob(name, token, b), size: b.byteLength });
  }
  const manifest = {
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: configDigest, size: config.byteLength },
    layers: layerDescs,
  };
  const bytes = bytesOf(JSON.stringify(manifest));
  const res = await putManifest(name, token, tag, bytes);
  if (res.status !== 201) throw new Error(`manifest push answered ${res.status}: ${await res.text()}`);
  return { manifest, bytes, digest: await digestOf(bytes), configDigest, layerDigests: layerDescs.map((l) => l.digest), totalSize: config.byteLength + layerDescs.reduce((n, l) => n + l.size, 0) };
}

export function putManifest(name: string, token: string, reference: string, bytes: Uint8Array<ArrayBuffer>, type = "application/vnd.oci.image.manifest.v1+json") {
  return registryCall(`/v2/${name}/manifests/${reference}`, { method: "PUT", bearer: token, body: bytes, headers: { "Content-Type": type } });
}

/** The env with other registry vars (limits), the same bindings. */
export const envWith = (vars: Partial<Record<keyof Bindings, string>>) => withVars(env, vars);

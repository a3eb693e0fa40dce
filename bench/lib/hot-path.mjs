// The hot-path scenarios of bench/peers.mjs that need more than a token: a Plugin Call (Connect binary
// unary ping, prebuilt Req messages) and a manifest GET by digest (a small image pushed first).
// Used by bench/peers.mjs; bench/plugin.mjs and bench/registry.mjs keep their own fuller runs.
import { createHash, randomFillSync, randomUUID } from "node:crypto";
import { ROOT_PASSWORD, form, json } from "./seed.mjs";

function varint(n) {
  const out = [];
  let v = BigInt(n);
  while (v > 127n) {
    out.push(Number((v & 127n) | 128n));
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
}
const field = (tag, bytes) => Buffer.concat([Buffer.from([tag]), varint(bytes.length), bytes]);

/** A Plugin Req (Header{UUID, Timestamp, Func}, Data) in protobuf binary. */
export function pluginReq(func, data = Buffer.alloc(0)) {
  const header = Buffer.concat([field(0x0a, Buffer.from(randomUUID())), Buffer.from([0x10]), varint(Date.now()), field(0x2a, Buffer.from(func))]);
  return Buffer.concat([field(0x0a, header), field(0x12, data)]);
}

/** Autocannon options for Connect-binary unary pings with `token` (ping is safe: never recorded). */
export function pluginCallScenario(base, token, n = 64) {
  return {
    url: `${base}/proto.Plugin/Call`,
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/proto", "connect-protocol-version": "1" },
    requests: Array.from({ length: n }, () => ({ method: "POST", body: pluginReq("ping", Buffer.from("bench")) })),
  };
}

const sha = (b) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

/** Pushes a small image (one 1 KiB layer) to `name` as `latest`; returns the manifest's JSON text. */
export async function pushSmallImage(base, { name, bearer }) {
  const put = async (b) => {
    const res = await fetch(`${base}/v2/${name}/blobs/uploads/?digest=${sha(b)}`, { method: "POST", headers: bearer, body: b });
    if (res.status !== 201) throw new Error(`blob: ${res.status}`);
    return { digest: sha(b), size: b.length };
  };
  const config = Buffer.from('{"os":"linux","architecture":"amd64"}');
  const layer = randomFillSync(Buffer.alloc(1024));
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: { mediaType: "application/vnd.oci.image.config.v1+json", ...(await put(config)) },
    layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", ...(await put(layer)) }],
  });
  const res = await fetch(`${base}/v2/${name}/manifests/latest`, { method: "PUT", headers: { ...bearer, "Content-Type": "application/vnd.oci.image.manifest.v1+json" }, body: manifest });
  if (res.status !== 201) throw new Error(`manifest: ${res.status} ${await res.text()}`);
  return manifest;
}

/** Pushes a small image into a new project of root; returns the manifest URL by digest and its headers. */
export async function manifestByDigestScenario(base) {
  const root = await json(await fetch(`${base}/oauth/token`, form({ grant_type: "password", username: "root", password: ROOT_PASSWORD, scope: "api" })));
  const auth = { Authorization: `Bearer ${root.access_token}`, "Content-Type": "application/json" };
  const project = await json(await fetch(`${base}/api/v4/projects`, { method: "POST", headers: auth, body: JSON.stringify({ name: "bench-image", path: `bench-image-${Date.now()}` }) }));
  const expires_at = new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10);
  const pat = await json(await fetch(`${base}/api/v4/users/1/personal_access_tokens`, { method: "POST", headers: auth, body: JSON.stringify({ name: "bench", scopes: ["write_registry"], expires_at }) }));
  const name = project.path_with_namespace.toLowerCase();
  const q = new URLSearchParams({ service: "container_registry", scope: `repository:${name}:pull,push` });
  const jwt = await json(await fetch(`${base}/jwt/auth?${q}`, { headers: { Authorization: `Basic ${Buffer.from(`root:${pat.token}`).toString("base64")}` } }));
  const bearer = { Authorization: `Bearer ${jwt.token}` };
  const manifest = await pushSmallImage(base, { name, bearer });
  return { url: `${base}/v2/${name}/manifests/${sha(Buffer.from(manifest))}`, headers: { ...bearer, Accept: "application/vnd.oci.image.manifest.v1+json" } };
}

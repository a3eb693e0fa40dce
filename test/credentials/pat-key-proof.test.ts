import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { md5Fingerprint, parseSshPublicKey, sha256Fingerprint } from "../../src/credentials/ssh-public-key";
import { AccessLevel } from "../../src/domain/access";
import { call, makeUserWithToken } from "../helpers/fixtures";
import { addMember, basic, gitRequest, makeProject } from "../git/fixtures";
import { glabProof, sshTestKey, type SshTestKey } from "../helpers/ssh-key";

/**
 * GitLab's DPoP for personal access tokens (epic 14383, Auth::DpopAuthenticationService): a user
 * with dpop_enabled sends with every API request made with a PAT a DPoP proof signed by one of their
 * SSH signing keys; RFC 9449 §4.3 and §11.1 for the proof's checks.
 */
const API = "http://localhost/api/v4/user";

async function uploadKey(token: string, key: SshTestKey, usageType = "signing") {
  const res = await call("/api/v4/user/keys", {
    method: "POST",
    token,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ title: "laptop", key: key.publicLine, usage_type: usageType }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: number; usage_type: string };
}

async function enableDpop(token: string, on = true) {
  const res = await call("/api/v4/user/preferences", { method: "PUT", token, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ dpop_enabled: on }) });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { dpop_enabled: boolean }).dpop_enabled).toBe(on);
}

const withProof = (token: string, dpop: string, init: RequestInit & { url?: string } = {}) =>
  call(init.url ?? API, { ...init, token, headers: { ...Object.fromEntries(new Headers(init.headers)), DPoP: dpop } });

async function dpopUser(type: "ssh-rsa" | "ssh-ed25519" | "ecdsa-sha2-nistp256" = "ssh-ed25519") {
  const { user, token } = await makeUserWithToken();
  const key = await sshTestKey(type);
  const uploaded = await uploadKey(token, key);
  await enableDpop(token);
  return { user, token, key, keyId: uploaded.id };
}

describe("OpenSSH public keys as JWKs (RFC 4253 §6.6, RFC 5656 §3.1, RFC 8709 §4)", () => {
  for (const type of ["ssh-rsa", "ssh-ed25519", "ecdsa-sha2-nistp256"] as const) {
    it(`${type}: the parsed JWK is the key's, and the SHA-256 fingerprint is ssh-keygen's`, async () => {
      const key = await sshTestKey(type);
      const parsed = parseSshPublicKey(key.publicLine)!;
      expect(parsed.jwk).toEqual(Object.fromEntries(Object.entries(key.jwk).filter(([k]) => ["kty", "n", "e", "crv", "x", "y"].includes(k))));
      expect(`SHA256:${await sha256Fingerprint(parsed)}`).toBe(key.kid);
      expect(await md5Fingerprint(parsed)).toMatch(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);
    });
  }
  it("a truncated blob, an unknown type or a type that disagrees with the blob is not a key", async () => {
    const key = await sshTestKey("ssh-ed25519");
    const [, data] = key.publicLine.split(" ");
    expect(parseSshPublicKey(`ssh-ed25519 ${data!.slice(0, 40)}`)).toBeNull();
    expect(parseSshPublicKey(`ssh-dss ${data}`)).toBeNull();
    expect(parseSshPublicKey("not a key")).toBeNull();
  });
});

describe("GitLab SSH keys API (/user/keys, /users/:id/keys)", () => {
  it("adds, lists, shows and deletes a key with its usage_type; a second upload of one key is refused", async () => {
    const { user, token } = await makeUserWithToken();
    const key = await sshTestKey("ecdsa-sha2-nistp256");
    const { id, usage_type } = await uploadKey(token, key, "auth_and_signing");
    expect(usage_type).toBe("auth_and_signing");
    const again = await call("/api/v4/user/keys", { method: "POST", token, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ title: "x", key: key.publicLine }) });
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ message: { fingerprint_sha256: ["has already been taken"] } });
    const listed = (await (await call(`/api/v4/users/${user.id}/keys`, { token })).json()) as { id: number }[];
    expect(listed.map((k) => k.id)).toEqual([id]);
    expect((await call(`/api/v4/user/keys/${id}`, { token })).status).toBe(200);
    expect((await call(`/api/v4/user/keys/${id}`, { method: "DELETE", token })).status).toBe(204);
    expect((await call(`/api/v4/user/keys/${id}`, { token })).status).toBe(404);
  });
  it("a key that is not an OpenSSH public key is a 400 naming the key", async () => {
    const { token } = await makeUserWithToken();
    const res = await call("/api/v4/user/keys", { method: "POST", token, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ title: "x", key: "ssh-rsa AAAA" }) });
    expect(res.status).toBe(400);
    expect(Object.keys(((await res.json()) as { message: object }).message)).toEqual(["key"]);
  });
});

describe("GitLab DPoP for personal access tokens (user preference dpop_enabled)", () => {
  it("dpop_enabled off: a PAT works as before, without a DPoP header", async () => {
    const { token } = await makeUserWithToken();
    expect((await call(API, { token })).status).toBe(200);
  });

  for (const type of ["ssh-rsa", "ssh-ed25519", "ecdsa-sha2-nistp256"] as const) {
    it(`dpop_enabled: a proof signed by the user's ${type} signing key, as glab builds it, is accepted`, async () => {
      const { user, token, key } = await dpopUser(type);
      const res = await withProof(token, await glabProof(key, token, API));
      expect(res.status).toBe(200);
      expect(((await res.json()) as { id: number }).id).toBe(user.id);
    });
  }

  it("dpop_enabled: a PAT without a DPoP header is refused (GitLab: DPoP header is missing), with a DPoP challenge", async () => {
    const { token } = await dpopUser();
    const res = await call(API, { token });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^DPoP error="invalid_dpop_proof", error_description="DPoP validation error: DPoP header is missing"/);
  });

  it("dpop_enabled: the PAT sent as PRIVATE-TOKEN is refused without a proof too", async () => {
    const { token } = await dpopUser();
    expect((await call(API, { headers: { "PRIVATE-TOKEN": token } })).status).toBe(401);
  });

  it("dpop_enabled: a proof signed by a key that is not one of the user's signing keys is refused (GitLab: No matching key found)", async () => {
    const { token } = await dpopUser();
    const stranger = await sshTestKey("ssh-ed25519");
    const res = await withProof(token, await glabProof(stranger, token, API));
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toContain("No matching key found");
  });

  it("dpop_enabled: another user's signing key does not sign for this user's PAT", async () => {
    const other = await dpopUser();
    const { token } = await dpopUser();
    expect((await withProof(token, await glabProof(other.key, token, API))).status).toBe(401);
  });

  it("dpop_enabled: a proof naming the user's key by kid but carrying another jwk is refused", async () => {
    const { token, key } = await dpopUser();
    const stranger = await sshTestKey("ssh-ed25519");
    const forged = await glabProof({ ...stranger, kid: key.kid }, token, API);
    expect((await withProof(token, forged)).status).toBe(401);
  });

  it("dpop_enabled: a key with usage_type auth (not signing) does not sign proofs", async () => {
    const { token } = await makeUserWithToken();
    const key = await sshTestKey("ssh-ed25519");
    await uploadKey(token, key, "auth");
    await enableDpop(token);
    expect((await withProof(token, await glabProof(key, token, API))).status).toBe(401);
  });

  it("dpop_enabled: once the signing key is removed, its proofs are refused", async () => {
    const { token, key, keyId } = await dpopUser();
    expect((await withProof(token, await glabProof(key, token, API))).status).toBe(200);
    const keyUrl = `http://localhost/api/v4/user/keys/${keyId}`;
    expect((await withProof(token, await glabProof(key, token, keyUrl, { htm: "DELETE" }), { method: "DELETE", url: keyUrl })).status).toBe(204);
    const res = await withProof(token, await glabProof(key, token, API));
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toContain("No matching key found");
  });

  it("RFC 9449 §11.1: a proof's jti is used once; the replayed proof is refused", async () => {
    const { token, key } = await dpopUser();
    const once = await glabProof(key, token, API);
    expect((await withProof(token, once)).status).toBe(200);
    const replay = await withProof(token, once);
    expect(replay.status).toBe(401);
    expect(replay.headers.get("WWW-Authenticate")).toContain("jti was already used");
  });

  it("RFC 9449 §4.3 step 12 (GitLab: Incorrect access token hash): a proof made for another PAT is refused", async () => {
    const { token, key } = await dpopUser();
    expect((await withProof(token, await glabProof(key, "glpat-someoneelsestoken00000", API))).status).toBe(401);
  });

  it("RFC 9449 §4.3 steps 8-9: a proof for another method or URL is refused", async () => {
    const { token, key } = await dpopUser();
    expect((await withProof(token, await glabProof(key, token, API, { htm: "POST" }))).status).toBe(401);
    expect((await withProof(token, await glabProof(key, token, "http://localhost/api/v4/projects"))).status).toBe(401);
  });

  it("GitLab DpopToken: exp more than 5 minutes after iat, or no kid, is refused", async () => {
    const { token, key } = await dpopUser();
    const long = await withProof(token, await glabProof(key, token, API, { lifetime: 301 }));
    expect(long.status).toBe(401);
    expect(long.headers.get("WWW-Authenticate")).toContain("exp must not exceed iat by more than 5 minutes");
    const noKid = await withProof(token, await glabProof(key, token, API, { header: { kid: undefined } }));
    expect(noKid.headers.get("WWW-Authenticate")).toContain("No kid in JWT");
  });

  it("GraphQL takes the same rule: a dpop_enabled user's PAT without a proof is refused", async () => {
    const { token, key } = await dpopUser();
    const body = JSON.stringify({ query: "{ currentUser { username } }" });
    const bare = await call("/api/graphql", { method: "POST", token, headers: { "Content-Type": "application/json" }, body });
    expect(bare.status).toBe(401);
    const proved = await call("/api/graphql", {
      method: "POST",
      token,
      headers: { "Content-Type": "application/json", DPoP: await glabProof(key, token, "http://localhost/api/graphql", { htm: "POST" }) },
      body,
    });
    expect(proved.status).toBe(200);
  });

  it("turning dpop_enabled off gives bearer use back", async () => {
    const { token, key } = await dpopUser();
    const off = await call("/api/v4/user/preferences", {
      method: "PUT",
      token,
      headers: { "Content-Type": "application/json", DPoP: await glabProof(key, token, "http://localhost/api/v4/user/preferences", { htm: "PUT" }) },
      body: JSON.stringify({ dpop_enabled: false }),
    });
    expect(off.status).toBe(200);
    expect((await call(API, { token })).status).toBe(200);
  });

  it("GitLab asks for the proof on API requests only: git over HTTPS takes a dpop_enabled user's PAT by HTTP Basic without one", async () => {
    const { user, token } = await dpopUser();
    const { project } = await makeProject();
    await addMember("project", project.id, user.id, AccessLevel.DEVELOPER);
    const res = await gitRequest(`/${project.pathWithNamespace}.git/info/refs?service=git-upload-pack`, { auth: basic(user.username, token) });
    expect(res.status).toBe(200);
    await res.body?.cancel();
    expect((await call(API, { token })).status).toBe(401);
  });

  it("the package registry under /api/v4 is an API request: a dpop_enabled user's PAT without a proof is refused there", async () => {
    const { user, token } = await dpopUser();
    const { project } = await makeProject();
    await addMember("project", project.id, user.id, AccessLevel.DEVELOPER);
    const res = await call(`/api/v4/projects/${project.id}/packages/generic/thing/1.0.0/file.txt`, { headers: { "PRIVATE-TOKEN": token } });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toContain("DPoP header is missing");
  });
});

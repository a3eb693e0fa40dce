import { execFile as execFileCallback } from "node:child_process";
import { createHash, createPrivateKey, randomUUID, type KeyObject } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createUser, rootToken } from "./pages-support";

/**
 * GitLab's DPoP for personal access tokens end to end (docs/oauth.md, "Personal access tokens bound
 * to SSH keys"): keys made by Debian's ssh-keygen are uploaded through GitLab's SSH keys API, the
 * user turns dpop_enabled on, and each REST call carries a proof built the way `glab auth dpop-gen`
 * builds it: the SSH private key read from its file, kid the key's SHA256 fingerprint as
 * `ssh-keygen -l` prints it, alg RS512 / EdDSA / ES256, iat, exp = iat + 5 minutes, jti, ath.
 */
const base = inject("baseURL");
const work = mkdtempSync(path.join(tmpdir(), "pat-ssh-dpop-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface UserKey {
  privateKey: KeyObject;
  publicLine: string;
  kid: string;
  alg: "RS512" | "EdDSA" | "ES256";
}

/** Length-prefixed strings (RFC 4251 §5) read one after another from `buf`, starting at `at`. */
function reader(buf: Buffer, at: number) {
  return {
    skip(n: number) {
      at += n;
    },
    next(): Buffer {
      const len = buf.readUInt32BE(at);
      const v = buf.subarray(at + 4, at + 4 + len);
      at += 4 + len;
      return v;
    },
  };
}

/** An unencrypted OpenSSH ed25519 private key (OpenSSH's PROTOCOL.key): its 32-byte seed, as glab's x/crypto/ssh reads it. */
function ed25519FromOpenSsh(file: string): KeyObject {
  const blob = Buffer.from(readFileSync(file, "utf8").replace(/-----[^-]+-----/g, "").replace(/\s+/g, ""), "base64");
  const outer = reader(blob, "openssh-key-v1\0".length);
  outer.next(); // cipher "none"
  outer.next(); // kdf "none"
  outer.next(); // kdf options
  outer.skip(4); // number of keys
  outer.next(); // public key
  const inner = reader(outer.next(), 8); // after the two check integers
  inner.next(); // key type
  inner.next(); // public key
  const seed = inner.next().subarray(0, 32); // seed || public key
  return createPrivateKey({ key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]), format: "der", type: "pkcs8" });
}

/**
 * Runs ssh-keygen asynchronously: RSA generation can take seconds on a loaded machine, and a
 * synchronous child would block the event loop past the server's 5 s keep-alive, so the next
 * fetch would reuse a socket the server has already closed ("other side closed").
 */
const execFile = promisify(execFileCallback);

async function sshKeygen(type: "rsa" | "ed25519" | "ecdsa", name = `id_${type}`): Promise<UserKey> {
  const file = path.join(work, name);
  const args = type === "rsa" ? ["-t", "rsa", "-b", "3072", "-m", "PKCS8"] : type === "ecdsa" ? ["-t", "ecdsa", "-b", "256", "-m", "PKCS8"] : ["-t", "ed25519"];
  await execFile("ssh-keygen", ["-q", ...args, "-N", "", "-C", "e2e@example.com", "-f", file]);
  const fingerprint = (await execFile("ssh-keygen", ["-l", "-E", "sha256", "-f", `${file}.pub`], { encoding: "utf8" })).stdout.split(" ")[1]!;
  const privateKey = type === "ed25519" ? ed25519FromOpenSsh(file) : createPrivateKey(readFileSync(file));
  return { privateKey, publicLine: readFileSync(`${file}.pub`, "utf8").trim(), kid: fingerprint, alg: type === "rsa" ? "RS512" : type === "ed25519" ? "EdDSA" : "ES256" };
}

/** glab auth dpop-gen's proof, with the method and URL of the request it goes with. */
function glabProof(key: UserKey, pat: string, htm: string, htu: string): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  const ath = createHash("sha256").update(pat).digest("base64url");
  const jwk = { ...key.privateKey.export({ format: "jwk" }) } as Record<string, unknown>;
  for (const m of ["d", "p", "q", "dp", "dq", "qi"]) delete jwk[m];
  return new SignJWT({ iat, exp: iat + 300, jti: randomUUID(), ath, htm, htu }).setProtectedHeader({ alg: key.alg, typ: "dpop+jwt", jwk, kid: key.kid }).sign(key.privateKey);
}

let pat = "";
let userId = 0;
const keys: Record<string, UserKey> = {};

beforeAll(async () => {
  const admin = await rootToken(base, inject("rootPassword"));
  const user = await createUser(base, admin, "patdpop");
  userId = user.id;
  const created = await fetch(`${base}/api/v4/users/${user.id}/personal_access_tokens`, {
    method: "POST",
    headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "cli", scopes: ["api"], expires_at: new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10) }),
  });
  expect(created.status).toBe(201);
  pat = ((await created.json()) as { token: string }).token;
  for (const type of ["rsa", "ed25519", "ecdsa"] as const) {
    keys[type] = await sshKeygen(type);
    const up = await fetch(`${base}/api/v4/user/keys`, {
      method: "POST",
      headers: { "PRIVATE-TOKEN": pat, "Content-Type": "application/json" },
      body: JSON.stringify({ title: `laptop ${type}`, key: keys[type]!.publicLine, usage_type: "signing" }),
    });
    expect(up.status).toBe(201);
  }
  const pref = await fetch(`${base}/api/v4/user/preferences`, { method: "PUT", headers: { "PRIVATE-TOKEN": pat, "Content-Type": "application/json" }, body: JSON.stringify({ dpop_enabled: true }) });
  expect(pref.status).toBe(200);
}, 60_000);

describe("GitLab DPoP for personal access tokens with ssh-keygen keys and glab-style proofs", () => {
  it("the PAT alone is refused with GitLab's DPoP message once dpop_enabled is on", async () => {
    const res = await fetch(`${base}/api/v4/user`, { headers: { "PRIVATE-TOKEN": pat } });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain("DPoP header is missing");
  });

  for (const type of ["rsa", "ed25519", "ecdsa"] as const) {
    it(`a proof signed by the ${type} key from ssh-keygen is accepted; the same proof replayed is refused (RFC 9449 §11.1)`, async () => {
      const url = `${base}/api/v4/user`;
      const dpop = await glabProof(keys[type]!, pat, "GET", url);
      const ok = await fetch(url, { headers: { "PRIVATE-TOKEN": pat, DPoP: dpop } });
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { id: number }).id).toBe(userId);
      const replay = await fetch(url, { headers: { "PRIVATE-TOKEN": pat, DPoP: dpop } });
      expect(replay.status).toBe(401);
    });
  }

  it("a key made by ssh-keygen but never uploaded signs nothing", async () => {
    const stranger = await sshKeygen("ed25519", "stranger");
    const url = `${base}/api/v4/user`;
    const res = await fetch(url, { headers: { "PRIVATE-TOKEN": pat, DPoP: await glabProof(stranger, pat, "GET", url) } });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain("No matching key found");
  });
});

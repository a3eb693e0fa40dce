import { create, toBinary } from "@bufbuild/protobuf";
import { createExecutionContext, env } from "cloudflare:test";
import app from "../../src/app";
import { withVars } from "../../src/config";
import type { Bindings } from "../../src/env";
import { describe, expect, it } from "vitest";
import { ReqSchema } from "../../src/gen/proto/plugin_pb";
import { AccessLevel } from "../../src/domain/access";
import { boundToken, dpopKey, proof, type Bound } from "../helpers/dpop";
import { TEST_PASSWORD, call, makeUser } from "../helpers/fixtures";
import { addMember, basic, gitRequest, makeProject } from "../git/fixtures";

/**
 * RFC 9449 at every resource door, through the front door: a DPoP-bound token is accepted only
 * under the DPoP scheme with a fresh proof of its key for this method and URL (§7.1, §4.3), and
 * refused with `WWW-Authenticate: DPoP error=..., algs=...` otherwise: as Bearer or in another
 * place (§7.2), without a proof, for another method or URL, with a wrong ath, a replayed jti
 * (§11.1), another key; a proof without the server's nonce is use_dpop_nonce with DPoP-Nonce (§9).
 */
async function dpopCall(b: Bound, path: string, init: RequestInit & { proofFor?: { htm?: string; htu?: string }; proofOpts?: Parameters<typeof proof>[2]; scheme?: string } = {}) {
  const method = init.method ?? "GET";
  const headers = new Headers(init.headers);
  headers.set("Authorization", `${init.scheme ?? "DPoP"} ${b.token}`);
  const dpop = await proof(b.key, init.proofFor?.htu ?? path.split("?")[0], { htm: init.proofFor?.htm ?? method, nonce: b.nonce, accessToken: b.token, ...init.proofOpts });
  headers.set("DPoP", dpop);
  return call(path, { ...init, method, headers });
}

function expectChallenge(res: Response, error: "invalid_token" | "invalid_dpop_proof" | "use_dpop_nonce") {
  expect(res.status).toBe(401);
  const challenge = res.headers.get("WWW-Authenticate") ?? "";
  expect(challenge).toMatch(/^DPoP /);
  expect(challenge).toContain(`error="${error}"`);
  expect(challenge).toContain('algs="ES256 ES384 PS256 RS256"');
}

const USER = "/api/v4/user";

describe("RFC 9449 DPoP at the REST door", () => {
  it("§7.1: a bound token under the DPoP scheme with a proof of its key for this request is accepted", async () => {
    const b = await boundToken();
    const res = await dpopCall(b, USER);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { username: string }).username).toBe(b.username);
    // §9: the answer hands the client the current nonce, so it never meets a rotation unprepared.
    expect(res.headers.get("DPoP-Nonce")).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it("§7.2: a bound token presented as Bearer is refused with the DPoP challenge invalid_token", async () => {
    const b = await boundToken();
    expectChallenge(await call(USER, { token: b.token }), "invalid_token");
  });

  it("§7.2: a bound token in PRIVATE-TOKEN or the query is refused as well", async () => {
    const b = await boundToken();
    expectChallenge(await call(USER, { headers: { "PRIVATE-TOKEN": b.token } }), "invalid_token");
    expectChallenge(await call(`${USER}?access_token=${b.token}`), "invalid_token");
  });

  it("§7.1: the DPoP scheme without a DPoP proof is invalid_dpop_proof", async () => {
    const b = await boundToken();
    expectChallenge(await call(USER, { headers: { Authorization: `DPoP ${b.token}` } }), "invalid_dpop_proof");
  });

  it("§4.3 step 8: a proof for another method is invalid_dpop_proof", async () => {
    const b = await boundToken();
    expectChallenge(await dpopCall(b, USER, { proofFor: { htm: "POST" } }), "invalid_dpop_proof");
  });

  it("§4.3 step 9: a proof for another URL is invalid_dpop_proof", async () => {
    const b = await boundToken();
    expectChallenge(await dpopCall(b, USER, { proofFor: { htu: "/api/v4/projects" } }), "invalid_dpop_proof");
  });

  it("§4.3 step 9: htu is compared without query and after normalisation (host case, default port)", async () => {
    const b = await boundToken();
    const res = await dpopCall(b, `${USER}?per_page=1`, { proofFor: { htu: "HTTP://LOCALHOST:80/api/v4/user" } });
    expect(res.status).toBe(200);
  });

  it("§4.3 step 12: a proof whose ath is another token's hash is invalid_dpop_proof", async () => {
    const b = await boundToken();
    expectChallenge(await dpopCall(b, USER, { proofOpts: { accessToken: "gloat-another" } }), "invalid_dpop_proof");
  });

  it("§11.1: a proof's jti is used once: the same proof again is invalid_dpop_proof", async () => {
    const b = await boundToken();
    const dpop = await proof(b.key, USER, { htm: "GET", nonce: b.nonce, accessToken: b.token });
    const send = () => call(USER, { headers: { Authorization: `DPoP ${b.token}`, DPoP: dpop } });
    expect((await send()).status).toBe(200);
    expectChallenge(await send(), "invalid_dpop_proof");
  });

  it("§4.3 step 6: a proof naming the token's key in its jwk header but signed by another key is invalid_dpop_proof, though that key's import is remembered", async () => {
    const b = await boundToken();
    // The key's import is remembered after its first proof; a forged one must still fail its signature check.
    expect((await dpopCall(b, USER)).status).toBe(200);
    const forger = await dpopKey();
    const forged = { ...b, key: { ...forger, jwk: b.key.jwk, jkt: b.key.jkt } };
    expectChallenge(await dpopCall(forged, USER), "invalid_dpop_proof");
    expect((await dpopCall(b, USER)).status).toBe(200);
  });

  it("§11.1 with the replay state sharded by jti: each of many proofs of one key is accepted once and refused when replayed", async () => {
    const b = await boundToken();
    const proofs = await Promise.all(Array.from({ length: 24 }, () => proof(b.key, USER, { htm: "GET", nonce: b.nonce, accessToken: b.token })));
    const send = (dpop: string) => call(USER, { headers: { Authorization: `DPoP ${b.token}`, DPoP: dpop } });
    expect((await Promise.all(proofs.map(send))).map((r) => r.status)).toEqual(proofs.map(() => 200));
    for (const res of await Promise.all(proofs.map(send))) expectChallenge(res, "invalid_dpop_proof");
    // The same fresh proof sent twice at once: exactly one is accepted.
    const twice = await proof(b.key, USER, { htm: "GET", nonce: b.nonce, accessToken: b.token });
    const statuses = (await Promise.all([send(twice), send(twice)])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 401]);
  });

  it("§7.1: a proof by another key than the token's is invalid_token", async () => {
    const b = await boundToken();
    const thief = { ...b, key: await dpopKey() };
    expectChallenge(await dpopCall(thief, USER), "invalid_token");
  });

  it("§9: a proof without the server's nonce is use_dpop_nonce with DPoP-Nonce, and the retry with it succeeds", async () => {
    const b = await boundToken();
    const first = await dpopCall(b, USER, { proofOpts: { nonce: null } });
    expectChallenge(first, "use_dpop_nonce");
    const nonce = first.headers.get("DPoP-Nonce");
    expect(nonce).toBeTruthy();
    expect((await dpopCall({ ...b, nonce: nonce! }, USER)).status).toBe(200);
  });

  it("§7.1: a bearer (unbound) token under the DPoP scheme is invalid_token", async () => {
    const b = await boundToken();
    const user = await makeUser();
    const res = await call("/oauth/token", { method: "POST", body: new URLSearchParams({ grant_type: "password", username: user.username, password: TEST_PASSWORD }) });
    const bearer = ((await res.json()) as { access_token: string }).access_token;
    expectChallenge(await dpopCall({ ...b, token: bearer }, USER), "invalid_token");
  });
});

describe("RFC 9449 DPoP at the other doors", () => {
  it("§7.1 GraphQL: accepted with a proof; §7.2 refused as Bearer with the DPoP challenge", async () => {
    const b = await boundToken();
    const init = { method: "POST", body: JSON.stringify({ query: "{ currentUser { username } }" }), headers: { "Content-Type": "application/json" } };
    const ok = await dpopCall(b, "/api/graphql", init);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { data: { currentUser: { username: string } } }).data.currentUser.username).toBe(b.username);
    expectChallenge(await call("/api/graphql", { ...init, token: b.token }), "invalid_token");
  });

  it("§7.1 userinfo: accepted with a proof; §7.2 refused as Bearer; §9 use_dpop_nonce without the nonce", async () => {
    const b = await boundToken();
    const ok = await dpopCall(b, "/oauth/userinfo");
    expect(ok.status).toBe(200);
    expectChallenge(await call("/oauth/userinfo", { token: b.token }), "invalid_token");
    const noNonce = await dpopCall(b, "/oauth/userinfo", { proofOpts: { nonce: null } });
    expectChallenge(noNonce, "use_dpop_nonce");
    expect(noNonce.headers.get("DPoP-Nonce")).toBeTruthy();
  });

  it("§7.1 token info: accepted with a proof; §7.2 refused as Bearer and in the query", async () => {
    const b = await boundToken();
    expect((await dpopCall(b, "/oauth/token/info")).status).toBe(200);
    expectChallenge(await call("/oauth/token/info", { token: b.token }), "invalid_token");
    expectChallenge(await call(`/oauth/token/info?access_token=${b.token}`), "invalid_token");
  });

  it("§7.1 Plugin RPC (Connect): accepted with a proof; §7.2 refused as Bearer with the DPoP challenge in the headers", async () => {
    const b = await boundToken();
    const body = JSON.stringify({ Header: { UUID: crypto.randomUUID(), Func: "ping", Timestamp: String(Date.now()) }, Data: btoa("hi") });
    const init = { method: "POST", body, headers: { "Content-Type": "application/json" } };
    const ok = await dpopCall(b, "/proto.Plugin/Call", init);
    expect(ok.status).toBe(200);
    const refused = await call("/proto.Plugin/Call", { ...init, token: b.token });
    expect(((await refused.json()) as { code: string }).code).toBe("unauthenticated");
    expectChallenge(refused, "invalid_token");
  });

  it("§7.1 Plugin RPC (gRPC-Web): accepted with a proof; §7.2 refused as Bearer (grpc-status 16) with the DPoP challenge", async () => {
    const b = await boundToken();
    const message = toBinary(ReqSchema, create(ReqSchema, { Header: { UUID: crypto.randomUUID(), Func: "ping", Timestamp: BigInt(Date.now()) }, Data: new TextEncoder().encode("hi") }));
    const framed = new Uint8Array(5 + message.byteLength);
    new DataView(framed.buffer).setUint32(1, message.byteLength);
    framed.set(message, 5);
    const init = () => ({ method: "POST", body: framed, headers: { "Content-Type": "application/grpc-web+proto", "X-Grpc-Web": "1" } });
    const ok = await dpopCall(b, "/proto.Plugin/Call", init());
    expect(ok.status).toBe(200);
    expect(ok.headers.get("grpc-status")).toBeNull();
    expect(new TextDecoder().decode(await ok.arrayBuffer())).toMatch(/grpc-status: ?0\r\n/);
    const refused = await call("/proto.Plugin/Call", { ...init(), token: b.token });
    expect(new TextDecoder().decode(await refused.arrayBuffer())).toMatch(/grpc-status: ?16/);
    expect(refused.headers.get("WWW-Authenticate")).toContain('DPoP error="invalid_token"');
  });

  it("§7.2 git over HTTPS: a bound token as the Basic password (no proof possible) is refused with 401", async () => {
    const b = await boundToken("api");
    const { project } = await makeProject();
    await addMember("project", project.id, b.userId, AccessLevel.DEVELOPER);
    const refs = `/${project.pathWithNamespace}.git/info/refs?service=git-upload-pack`;
    const res = await gitRequest(refs, { auth: basic("oauth2", b.token) });
    expect(res.status).toBe(401);
    // The same user's bearer token fetches: the refusal is the binding's.
    const bearer = await call("/oauth/token", { method: "POST", body: new URLSearchParams({ grant_type: "password", username: b.username, password: TEST_PASSWORD }) });
    const ok = await gitRequest(refs, { auth: basic("oauth2", ((await bearer.json()) as { access_token: string }).access_token) });
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
  });
});

describe("RFC 9449 §11.1 with the validation cache (docs/scaling.md, DPoP: the replay check off the serial path)", () => {
  /** Counts the objects a namespace is asked for, forwarding to the real binding. */
  function counting(ns: DurableObjectNamespace) {
    let gets = 0;
    const proxy = new Proxy(ns, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (prop === "get") return (...args: Parameters<DurableObjectNamespace["get"]>) => (gets++, target.get(...args));
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    return { ns: proxy, gets: () => gets };
  }

  it("a remembered bound token still needs a proof of its key, and each request's jti is still checked once (the replay object, not the family, is its one hop)", async () => {
    const b = await boundToken();
    const family = counting(env.TOKEN_FAMILY);
    const replay = counting(env.DPOP_REPLAY);
    const e = withVars({ ...env, TOKEN_FAMILY: family.ns, DPOP_REPLAY: replay.ns } as Bindings, { VALIDATION_CACHE_SECONDS: "5" });
    const send = async (headers: Record<string, string>) => (await app.fetch(new Request(`http://localhost${USER}`, { headers: { "CF-Connecting-IP": "10.9.9.9", ...headers } }), e, createExecutionContext())).status;
    const withProof = async () => ({ Authorization: `DPoP ${b.token}`, DPoP: await proof(b.key, USER, { htm: "GET", nonce: b.nonce, accessToken: b.token }) });
    expect(await send(await withProof())).toBe(200);
    expect([family.gets(), replay.gets()]).toEqual([1, 1]);
    // Remembered now: the family is not asked again, the replay object is, once per request.
    const second = await withProof();
    expect(await send(second)).toBe(200);
    expect([family.gets(), replay.gets()]).toEqual([1, 2]);
    expect(await send(second)).toBe(401);
    // The binding is part of what is remembered: as Bearer the remembered token is still refused.
    expect(await send({ Authorization: `Bearer ${b.token}` })).toBe(401);
  });
});

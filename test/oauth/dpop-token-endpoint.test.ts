import { describe, expect, it } from "vitest";
import { signedInUser } from "../helpers/browser";
import { dpopKey, proof, rawProof, rsaKey, serverNonce, type DpopKey } from "../helpers/dpop";
import { REDIRECT, TEST_PASSWORD, call, getCode, makeApp, makeUser, pkce, tokenRequest, type Tokens } from "./helpers";
import { GRANT as DEVICE_GRANT, enterCode, start, waitInterval } from "../oidc/device-helpers";

/**
 * RFC 9449 at the token endpoint: a valid proof binds the tokens of every grant to its key
 * (token_type DPoP, cnf.jkt in introspection); a bad proof is invalid_dpop_proof; a proof without
 * the server's nonce is use_dpop_nonce with DPoP-Nonce (§8); a public client's refresh token is
 * bound (§5); dpop_jkt binds the code (§10); a client registered with dpop_bound_access_tokens
 * gets no bearer token (§5.2).
 */
const TOKEN = "/oauth/token";

function dpopTokenRequest(fields: Record<string, string>, dpop: string | null, basic?: [string, string]) {
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  if (dpop) headers.DPoP = dpop;
  if (basic) headers.Authorization = `Basic ${btoa(`${basic[0]}:${basic[1]}`)}`;
  return call(TOKEN, { method: "POST", body: new URLSearchParams(fields), headers });
}

async function passwordWithProof(key: DpopKey, opts: Parameters<typeof proof>[2] = {}) {
  const user = await makeUser();
  const nonce = opts.nonce === undefined ? await serverNonce(key) : opts.nonce;
  const res = await dpopTokenRequest({ grant_type: "password", username: user.username, password: TEST_PASSWORD }, await proof(key, TOKEN, { ...opts, nonce }));
  return { user, res };
}

async function errorOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: string }).error;
}

async function codeFlow(app: { uid: string }, authorizeExtra: Record<string, string> = {}) {
  const { browser } = await signedInUser();
  const { verifier, challenge } = await pkce();
  const code = await getCode(browser, { client_id: app.uid, code_challenge: challenge, code_challenge_method: "S256", ...authorizeExtra });
  return { code, verifier };
}

describe("RFC 9449 DPoP at the token endpoint", () => {
  it("§8: a proof without the server's nonce is refused with use_dpop_nonce and a DPoP-Nonce to retry with", async () => {
    const key = await dpopKey();
    const { res } = await passwordWithProof(key, { nonce: null });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe("use_dpop_nonce");
    expect(res.headers.get("DPoP-Nonce")).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it("§5: the password grant with a valid proof issues a DPoP token (token_type DPoP) and sends the nonce", async () => {
    const key = await dpopKey();
    const { res } = await passwordWithProof(key);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Tokens).token_type).toBe("DPoP");
    expect(res.headers.get("DPoP-Nonce")).toBeTruthy();
  });

  it("§4.3: RS256, PS256 and ES384 keys are accepted as well as ES256", async () => {
    for (const alg of ["RS256", "PS256", "ES384"] as const) {
      const { res } = await passwordWithProof(await dpopKey(alg));
      expect(res.status).toBe(200);
    }
  });

  const refusals: [string, (key: DpopKey, nonce: string) => Promise<string>][] = [
    ["§4.3 step 4: typ other than dpop+jwt", (k, nonce) => proof(k, TOKEN, { nonce, header: { typ: "JWT" } })],
    ["§4.3 step 8: htm of another method", (k, nonce) => proof(k, TOKEN, { nonce, htm: "GET" })],
    ["§4.3 step 9: htu of another URI", (k, nonce) => proof(k, "/oauth/revoke", { nonce })],
    ["§4.3 step 11: iat an hour old", (k, nonce) => proof(k, TOKEN, { nonce, iat: Math.floor(Date.now() / 1000) - 3600 })],
    ["§4.3 step 11: iat in the future", (k, nonce) => proof(k, TOKEN, { nonce, iat: Math.floor(Date.now() / 1000) + 3600 })],
    ["§4.2: no jti", (k, nonce) => proof(k, TOKEN, { nonce, claims: { jti: undefined } })],
    ["§4.3 step 7: a jwk with its private part", async (k, nonce) => proof(k, TOKEN, { nonce, header: { jwk: { ...k.jwk, d: "AAAA" } } })],
    [
      "§4.3 step 6: a signature by another key than the jwk's",
      async (k, nonce) => {
        const other = await dpopKey();
        return proof({ ...other, jwk: k.jwk }, TOKEN, { nonce });
      },
    ],
    ["§4.3 step 2: not a JWT", async () => "not-a-jwt"],
    ["§4.3 step 2: a JWT whose segments are not base64url", async (k, nonce) => (await proof(k, TOKEN, { nonce })).replace(".", ".*")],
    ["§4.3 step 2: a payload that is not a JSON object", async (k) => rawProof(k, {}, ["jti", "htm", "htu"])],
    ["RFC 7519 §4.1.4: an exp already passed", (k, nonce) => proof(k, TOKEN, { nonce, claims: { exp: Math.floor(Date.now() / 1000) - 10 } })],
    [
      "RFC 7515 §4.1.11: a header naming an extension in crit",
      async (k, nonce) => rawProof(k, { crit: ["urn:example"], "urn:example": 1 }, { jti: crypto.randomUUID(), htm: "POST", htu: `http://localhost${TOKEN}`, iat: Math.floor(Date.now() / 1000), nonce }),
    ],
    [
      "RFC 7518 §3.3: an RSA key shorter than 2048 bits",
      async (_k, nonce) => rawProof(await rsaKey(1024), {}, { jti: crypto.randomUUID(), htm: "POST", htu: `http://localhost${TOKEN}`, iat: Math.floor(Date.now() / 1000), nonce }),
    ],
  ];
  for (const [title, make] of refusals) {
    it(`${title} is invalid_dpop_proof, and nothing is issued`, async () => {
      const key = await dpopKey();
      const nonce = await serverNonce(key);
      const user = await makeUser();
      const res = await dpopTokenRequest({ grant_type: "password", username: user.username, password: TEST_PASSWORD }, await make(key, nonce));
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toBe("invalid_dpop_proof");
    });
  }

  it("§4.3 step 1: two DPoP header fields are invalid_dpop_proof", async () => {
    const key = await dpopKey();
    const nonce = await serverNonce(key);
    const user = await makeUser();
    const headers = new Headers({ "Content-Type": "application/x-www-form-urlencoded" });
    headers.append("DPoP", await proof(key, TOKEN, { nonce }));
    headers.append("DPoP", await proof(key, TOKEN, { nonce }));
    const res = await call(TOKEN, { method: "POST", body: new URLSearchParams({ grant_type: "password", username: user.username, password: TEST_PASSWORD }), headers });
    expect(await errorOf(res)).toBe("invalid_dpop_proof");
  });

  it("§11.1: a proof's jti is used once: the same proof again is invalid_dpop_proof", async () => {
    const key = await dpopKey();
    const nonce = await serverNonce(key);
    const user = await makeUser();
    const dpop = await proof(key, TOKEN, { nonce });
    const fields = { grant_type: "password", username: user.username, password: TEST_PASSWORD };
    expect((await dpopTokenRequest(fields, dpop)).status).toBe(200);
    const again = await dpopTokenRequest(fields, dpop);
    expect(again.status).toBe(400);
    expect(await errorOf(again)).toBe("invalid_dpop_proof");
  });

  it("§6.2: introspection of a DPoP token answers token_type DPoP and cnf.jkt, the key's RFC 7638 thumbprint", async () => {
    const { app, secret } = await makeApp({ confidential: true });
    const key = await dpopKey();
    const user = await makeUser();
    const res = await dpopTokenRequest(
      { grant_type: "password", username: user.username, password: TEST_PASSWORD },
      await proof(key, TOKEN, { nonce: await serverNonce(key) }),
      [app.uid, secret],
    );
    const { access_token } = (await res.json()) as Tokens;
    const info = await call("/oauth/introspect", {
      method: "POST",
      body: new URLSearchParams({ token: access_token }),
      headers: { Authorization: `Basic ${btoa(`${app.uid}:${secret}`)}` },
    });
    const body = (await info.json()) as { active: boolean; token_type: string; cnf?: { jkt: string } };
    expect(body.active).toBe(true);
    expect(body.token_type).toBe("DPoP");
    expect(body.cnf).toEqual({ jkt: key.jkt });
  });

  it("§5: a public client's refresh token issued through DPoP refreshes only with a proof of the same key", async () => {
    const { app } = await makeApp({ confidential: false });
    const key = await dpopKey();
    const { code, verifier } = await codeFlow(app);
    const nonce = await serverNonce(key);
    const exchange = await dpopTokenRequest(
      { grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: verifier },
      await proof(key, TOKEN, { nonce }),
    );
    expect(exchange.status).toBe(200);
    const tokens = (await exchange.json()) as Tokens;
    expect(tokens.token_type).toBe("DPoP");
    const fields = { grant_type: "refresh_token", client_id: app.uid, refresh_token: tokens.refresh_token };
    // Without a proof, and with another key's proof: refused (and the family lives on).
    expect(await errorOf(await dpopTokenRequest(fields, null))).toBe("invalid_grant");
    const thief = await dpopKey();
    expect(await errorOf(await dpopTokenRequest(fields, await proof(thief, TOKEN, { nonce })))).toBe("invalid_grant");
    const ok = await dpopTokenRequest(fields, await proof(key, TOKEN, { nonce }));
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as Tokens).token_type).toBe("DPoP");
  });

  it("§5: the device grant with a proof issues DPoP tokens; the public device client's refresh token is bound", async () => {
    const { app, auth } = await start();
    const { browser } = await signedInUser();
    await enterCode(browser, auth.user_code);
    await waitInterval(auth.device_code);
    const key = await dpopKey();
    const nonce = await serverNonce(key);
    const res = await dpopTokenRequest({ grant_type: DEVICE_GRANT, client_id: app.uid, device_code: auth.device_code }, await proof(key, TOKEN, { nonce }));
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as Tokens;
    expect(tokens.token_type).toBe("DPoP");
    const fields = { grant_type: "refresh_token", client_id: app.uid, refresh_token: tokens.refresh_token };
    expect(await errorOf(await dpopTokenRequest(fields, null))).toBe("invalid_grant");
    expect((await dpopTokenRequest(fields, await proof(key, TOKEN, { nonce }))).status).toBe(200);
  });

  it("§5: a confidential client's refresh token is not bound: it refreshes with a new key's proof", async () => {
    const { app, secret } = await makeApp({ confidential: true });
    const key = await dpopKey();
    const { code, verifier } = await codeFlow(app);
    const nonce = await serverNonce(key);
    const exchange = await dpopTokenRequest(
      { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier },
      await proof(key, TOKEN, { nonce }),
      [app.uid, secret],
    );
    const tokens = (await exchange.json()) as Tokens;
    const other = await dpopKey();
    const res = await dpopTokenRequest({ grant_type: "refresh_token", refresh_token: tokens.refresh_token }, await proof(other, TOKEN, { nonce }), [app.uid, secret]);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Tokens).token_type).toBe("DPoP");
  });

  it("§10: a code requested with dpop_jkt is exchanged only with a proof of that key", async () => {
    const { app } = await makeApp({ confidential: false });
    const key = await dpopKey();
    const { code, verifier } = await codeFlow(app, { dpop_jkt: key.jkt });
    const nonce = await serverNonce(key);
    const fields = { grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: verifier };
    expect(await errorOf(await dpopTokenRequest(fields, null))).toBe("invalid_grant");
    expect(await errorOf(await dpopTokenRequest(fields, await proof(await dpopKey(), TOKEN, { nonce })))).toBe("invalid_grant");
    const ok = await dpopTokenRequest(fields, await proof(key, TOKEN, { nonce }));
    expect(ok.status).toBe(200);
  });

  it("§10: a malformed dpop_jkt is invalid_request at the authorization endpoint", async () => {
    const { app } = await makeApp({ confidential: false });
    const { browser } = await signedInUser();
    const { challenge } = await pkce();
    const q = new URLSearchParams({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", code_challenge: challenge, code_challenge_method: "S256", dpop_jkt: "short", state: "s" });
    const res = await browser.fetch(`/oauth/authorize?${q}`);
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
  });

  it("§5.2: a client with dpop_bound_access_tokens gets no bearer token: a request without a proof is invalid_dpop_proof", async () => {
    const { app, secret } = await makeApp({ confidential: true, dpopBoundAccessTokens: true });
    const user = await makeUser();
    const fields = { grant_type: "password", username: user.username, password: TEST_PASSWORD };
    const res = await tokenRequest(fields, { basic: [app.uid, secret] });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe("invalid_dpop_proof");
    const key = await dpopKey();
    const ok = await dpopTokenRequest(fields, await proof(key, TOKEN, { nonce: await serverNonce(key) }), [app.uid, secret]);
    expect(ok.status).toBe(200);
  });

  it("§5.1: discovery advertises dpop_signing_alg_values_supported", async () => {
    const res = await call("/.well-known/oauth-authorization-server");
    expect(((await res.json()) as { dpop_signing_alg_values_supported: string[] }).dpop_signing_alg_values_supported).toEqual(["ES256", "ES384", "PS256", "RS256"]);
  });
});

import { env, listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TokenFamily } from "../../src/durable/token-family";
import { signedInUser } from "../helpers/browser";
import { REDIRECT, TEST_PASSWORD, getCode, makeApp, makeUser, pkceTokens, refresh, tokenRequest, type Tokens } from "./helpers";

/** Every value in every D1 table, as one string. */
async function dumpD1(): Promise<string> {
  const { results } = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'").all<{ name: string }>();
  expect(results.length).toBeGreaterThan(3);
  const parts: string[] = [];
  for (const { name } of results) {
    const rows = await env.DB.prepare(`SELECT * FROM "${name}"`).all();
    parts.push(JSON.stringify(rows.results));
  }
  return parts.join("\n");
}

/** Every key and value of every TokenFamily object's storage, as one string. */
async function dumpFamilies(): Promise<string> {
  const ids = await listDurableObjectIds(env.TOKEN_FAMILY);
  expect(ids.length).toBeGreaterThan(0);
  const parts: string[] = [];
  for (const id of ids) {
    const stub = env.TOKEN_FAMILY.get(id) as DurableObjectStub<TokenFamily>;
    parts.push(await runInDurableObject(stub, async (_o: TokenFamily, state) => JSON.stringify([...state.storage.kv.list()])));
  }
  return parts.join("\n");
}

describe("DESIGN convention 6: storage holds only SHA-256 hashes of tokens, codes and client secrets", () => {
  it("after code (PKCE and secret), refresh, grace replay and password flows, no plaintext token, code or secret is in D1 or in TokenFamily storage", async () => {
    const secrets: string[] = [];
    // PKCE flow, two rotations and a grace replay (the sealed pair is in storage then).
    const pk = await pkceTokens();
    secrets.push(pk.tokens.access_token, pk.tokens.refresh_token, pk.secret);
    const r1 = (await (await refresh(pk.app, pk.tokens.refresh_token)).json()) as Tokens;
    const r1again = (await (await refresh(pk.app, pk.tokens.refresh_token)).json()) as Tokens;
    expect(r1again.refresh_token).toBe(r1.refresh_token);
    secrets.push(r1.access_token, r1.refresh_token);
    // Confidential flow: code and client secret.
    const { app, secret } = await makeApp();
    const { browser } = await signedInUser();
    const code = await getCode(browser, { client_id: app.uid });
    const t = (await (await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, client_secret: secret, code, redirect_uri: REDIRECT })).json()) as Tokens;
    secrets.push(code, secret, t.access_token, t.refresh_token);
    // Password grant.
    const user = await makeUser();
    const pw = (await (await tokenRequest({ grant_type: "password", username: user.username, password: TEST_PASSWORD })).json()) as Tokens;
    secrets.push(pw.access_token, TEST_PASSWORD);

    const storage = (await dumpD1()) + "\n" + (await dumpFamilies());
    for (const s of secrets) {
      expect(storage.includes(s), "a plaintext secret was found in storage").toBe(false);
      // Nor the random part alone (the visible ids in front of it are not secret).
      const random = s.split(".").pop()!;
      if (random.length >= 40) expect(storage.includes(random)).toBe(false);
    }
  });
});

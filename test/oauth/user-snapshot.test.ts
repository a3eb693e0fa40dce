import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { FamilyState, TokenFamily } from "../../src/durable/token-family";
import { userChanged } from "../../src/services/accounts/user-changed";
import { familyStub } from "../../src/credentials/oauth-family";
import { parseAccessToken } from "../../src/credentials/oauth-token-format";
import { call, pkceTokens, setUser } from "./helpers";

const stubOf = (token: string) => familyStub(env, parseAccessToken(token)!.fid);
const snapshot = (token: string) =>
  runInDurableObject(stubOf(token), async (_o: TokenFamily, state) => state.storage.kv.get<FamilyState>("state")!.user ?? null);
const name = async (token: string) => ((await (await call("/api/v4/user", { token })).json()) as { name: string }).name;

describe("docs/oauth.md, One hop: the family keeps the user snapshot an API request needs", () => {
  it("the first API request stores the user row in the family, without password hash or two-factor secrets", async () => {
    const { user, tokens } = await pkceTokens();
    expect(await snapshot(tokens.access_token)).toBeNull();
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(200);
    const snap = await snapshot(tokens.access_token);
    expect(snap!.row.id).toBe(user.id);
    expect(snap!.row.passwordHash).toBe("");
    expect(snap!.row.otpSecretEnc).toBeNull();
  });

  it("userChanged() takes effect at once: a blocked user's token is refused on the next request", async () => {
    const { user, tokens } = await pkceTokens();
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(200);
    await setUser(user.id, { state: "blocked", name: "Renamed" });
    await userChanged(env, user.id);
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(401);
  });

  it("a snapshot older than the TTL is replaced by the D1 row (bounds any change that forgets userChanged)", async () => {
    const { user, tokens } = await pkceTokens();
    const before = await name(tokens.access_token);
    await setUser(user.id, { name: "New Name" });
    await runInDurableObject(stubOf(tokens.access_token), async (_o: TokenFamily, state) => {
      const s = state.storage.kv.get<FamilyState>("state")!;
      s.user!.at = Date.now() - 60_000;
      state.storage.kv.put("state", s);
    });
    expect(before).not.toBe("New Name");
    expect(await name(tokens.access_token)).toBe("New Name");
  });
});

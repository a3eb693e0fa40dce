import { Code, ConnectError } from "@connectrpc/connect";
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AuthError, ScopeError } from "../../src/credentials/errors";
import { CREDENTIAL_KINDS, kindOf } from "../../src/credentials/kinds";
import { familyStub } from "../../src/credentials/oauth-family";
import { parseAccessToken } from "../../src/credentials/oauth-token-format";
import { requireScopes, resolveToken } from "../../src/credentials/resolve";
import { AccessLevel } from "../../src/domain/access";
import type { FamilyState, TokenFamily } from "../../src/durable/token-family";
import { call, makePat, makeUser, TEST_PASSWORD } from "../helpers/fixtures";
import { oauthToken } from "../helpers/password-grant";
import { pkceTokens, refresh } from "../oauth/helpers";
import { addMember, basic, gitRequest, makeProject } from "../git/fixtures";
import { header, pluginClient } from "../plugin/client";
import { revokeCredential } from "./revoke";

/**
 * DESIGN, Credentials: every kind of token goes through one layer, and every route family renders
 * the layer's answer in its own shape. One table per kind: valid, expired, revoked, wrong scope,
 * through resolveToken directly and through each family (REST, GraphQL, Plugin RPC, git).
 */

type State = "valid" | "expired" | "revoked" | "wrong_scope";

interface Kind {
  name: "oauth" | "personal_access_token";
  /** A token of this kind for the user, in the given state. */
  make(user: { id: number; username: string }, state: State): Promise<string>;
}

const DAY = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const KINDS: Kind[] = [
  {
    name: "oauth",
    async make(user, state) {
      const token = await oauthToken(user.username, TEST_PASSWORD, state === "wrong_scope" ? "read_user" : "api");
      if (state === "expired") {
        await runInDurableObject(familyStub(env, parseAccessToken(token)!.fid), async (_o: TokenFamily, s) => {
          const f = s.storage.kv.get<FamilyState>("state")!;
          f.access!.expiresAt = Date.now() - 1;
          s.storage.kv.put("state", f);
        });
      }
      if (state === "revoked") await revokeCredential(token);
      return token;
    },
  },
  {
    name: "personal_access_token",
    async make(user, state) {
      const token = await makePat(user.id, state === "wrong_scope" ? ["read_user"] : ["api"], state === "expired" ? isoDay(Date.now() - 2 * DAY) : undefined);
      if (state === "revoked") await revokeCredential(token);
      return token;
    },
  },
];

async function member() {
  const { project } = await makeProject({ visibility: "private" });
  const user = await makeUser();
  await addMember("project", project.id, user.id, AccessLevel.DEVELOPER);
  return { user, project };
}

const graphql = (token: string) =>
  call("/api/graphql", { method: "POST", token, body: JSON.stringify({ query: "{ currentUser { username } }" }), headers: { "Content-Type": "application/json" } });

const pluginCode = async (token: string) => {
  try {
    return (await pluginClient("connect", token).call({ Header: header() })).Code === 0 ? "ok" : "res-error";
  } catch (err) {
    return ConnectError.from(err).code;
  }
};

describe("the prefix table routes each token to its kind without a lookup", () => {
  it("every row has a distinct prefix; glpat-, gloat-, glort- are routed; anything else is unknown", async () => {
    const prefixes = CREDENTIAL_KINDS.map((k) => k.prefix);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    expect(kindOf("glpat-abc")?.name).toBe("personal_access_token");
    expect(kindOf("gloat-abc")?.name).toBe("oauth");
    expect(kindOf("glort-abc")?.name).toBe("refresh_token");
    expect(kindOf("bearer-abc")).toBeNull();
    await expect(resolveToken(env, "bearer-abc")).rejects.toMatchObject({ reason: "invalid" });
    await expect(resolveToken(env, "")).rejects.toMatchObject({ reason: "missing" });
  });

  it("RFC 6749 §1.5: a refresh token is never a bearer credential (refused like an unknown token)", async () => {
    // A real refresh token, issued by the code grant (the password grant issues none).
    const { app, tokens } = await pkceTokens();
    expect(kindOf(tokens.refresh_token)?.name).toBe("refresh_token");
    await expect(resolveToken(env, tokens.refresh_token)).rejects.toMatchObject({ reason: "invalid" });
    const asBearer = await call("/api/v4/user", { token: tokens.refresh_token });
    const unknown = await call("/api/v4/user", { token: `glort-${"x".repeat(40)}` });
    expect(asBearer.status).toBe(401);
    expect([asBearer.status, await asBearer.json()]).toEqual([unknown.status, await unknown.json()]);
    // The refusal is not because the token is dead: it still refreshes at /oauth/token.
    expect((await refresh(app, tokens.refresh_token)).status).toBe(200);
  });
});

for (const kind of KINDS) {
  describe(`${kind.name} through the one layer`, () => {
    it("valid: resolves to its user, scopes and kind; every family accepts it", async () => {
      const { user, project } = await member();
      const token = await kind.make(user, "valid");
      const p = await resolveToken(env, token);
      expect(p).toMatchObject({ kind: kind.name, scopes: ["api"], applicationId: null });
      expect(p.user.id).toBe(user.id);
      expect(p.tokenId).toBeTruthy();
      expect(p.expiresAt).toBeGreaterThan(Date.now());
      expect((await call("/api/v4/user", { token })).status).toBe(200);
      const gql = await graphql(token);
      expect(gql.status).toBe(200);
      expect(((await gql.json()) as { data: { currentUser: { username: string } } }).data.currentUser.username).toBe(user.username);
      expect(await pluginCode(token)).toBe("ok");
      const git = await gitRequest(`/${project.pathWithNamespace}.git/info/refs?service=git-upload-pack`, {
        auth: basic(kind.name === "oauth" ? "oauth2" : user.username, token),
      });
      expect(git.status).toBe(200);
      await git.body?.cancel();
    });

    for (const state of ["expired", "revoked"] as const) {
      it(`${state}: AuthError("${state}"); REST 401 invalid_token, GraphQL 401, Connect unauthenticated, git 401 Basic`, async () => {
        const { user, project } = await member();
        const token = await kind.make(user, state);
        const err = await resolveToken(env, token).catch((e) => e);
        expect(err).toBeInstanceOf(AuthError);
        expect(err.reason).toBe(state);
        const rest = await call("/api/v4/user", { token });
        expect(rest.status).toBe(401);
        expect(((await rest.json()) as { error: string }).error).toBe("invalid_token");
        expect(rest.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
        const gql = await graphql(token);
        expect(gql.status).toBe(401);
        expect(((await gql.json()) as { errors: { extensions: { code: string; reason: string } }[] }).errors[0].extensions).toMatchObject({ code: "UNAUTHENTICATED", reason: state });
        expect(await pluginCode(token)).toBe(Code.Unauthenticated);
        const git = await gitRequest(`/${project.pathWithNamespace}.git/info/refs?service=git-upload-pack`, {
          auth: basic(kind.name === "oauth" ? "oauth2" : user.username, token),
        });
        expect(git.status).toBe(401);
        expect(git.headers.get("WWW-Authenticate")).toMatch(/^Basic realm=/);
      });
    }

    it("wrong scope (read_user only): ScopeError; REST 403 insufficient_scope, GraphQL 403, Connect permission_denied, git 401", async () => {
      const { user, project } = await member();
      const token = await kind.make(user, "wrong_scope");
      const p = await resolveToken(env, token);
      expect(() => requireScopes(p, ["api"])).toThrow(ScopeError);
      const rest = await call("/api/v4/projects", { token });
      expect(rest.status).toBe(403);
      expect(await rest.json()).toMatchObject({ error: "insufficient_scope" });
      const gql = await graphql(token);
      expect(gql.status).toBe(403);
      expect(((await gql.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe("INSUFFICIENT_SCOPE");
      expect(await pluginCode(token)).toBe(Code.PermissionDenied);
      const git = await gitRequest(`/${project.pathWithNamespace}.git/info/refs?service=git-upload-pack`, {
        auth: basic(kind.name === "oauth" ? "oauth2" : user.username, token),
      });
      expect(git.status).toBe(401);
    });
  });
}

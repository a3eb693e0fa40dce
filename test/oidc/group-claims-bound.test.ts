import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { GROUP_CLAIMS_CAP } from "../../src/db/group-memberships";
import { GROUPS_DIRECT_CAP } from "../../src/oauth/oidc/claims";
import { call, unique } from "../oauth/helpers";
import { oidcLogin, verifyIdToken } from "./helpers";

/**
 * docs/oidc.md, "Group claims" and docs/scaling.md: the userinfo `groups` claim and the id_token's
 * `groups_direct` are bounded (GROUP_CLAIMS_CAP, GROUPS_DIRECT_CAP), so a user in thousands of
 * groups gets a response of bounded size; direct memberships come before inherited subgroups.
 */

/** n top-level groups with the user as a direct developer member, in two statements. */
async function joinGroups(userId: number, n: number): Promise<string> {
  const prefix = unique("bulk").toLowerCase();
  await env.DB.batch([
    env.DB.prepare(
      `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?2)
       INSERT INTO groups (name, path, full_path, visibility, created_at) SELECT ?1 || i, ?1 || i, ?1 || i, 'private', 0 FROM k`,
    ).bind(prefix, n),
    env.DB.prepare(
      `INSERT INTO members (source_type, source_id, user_id, access_level, created_at)
       SELECT 'group', id, ?2, 30, 0 FROM groups WHERE full_path LIKE ?1 || '%'`,
    ).bind(prefix, userId),
  ]);
  return prefix;
}

describe("bounded group claims (docs/oidc.md, Group claims)", () => {
  it("userinfo: groups and the role claims hold at most GROUP_CLAIMS_CAP paths, direct memberships first", async () => {
    const { user, tokens, browser } = await oidcLogin("openid");
    const prefix = await joinGroups(user.id, GROUP_CLAIMS_CAP + 50);
    const res = await call("/oauth/userinfo", { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, string[]>;
    expect(body.groups).toHaveLength(GROUP_CLAIMS_CAP);
    expect(body.groups.every((p) => p.startsWith(prefix))).toBe(true);
    expect(body["https://gitlab.org/claims/groups/developer"]).toHaveLength(GROUP_CLAIMS_CAP);
    // The same person's id_token carries at most GROUPS_DIRECT_CAP direct groups.
    const again = await oidcLogin("openid", {}, { uid: undefined }, { user, browser });
    const claims = await verifyIdToken(again.tokens.id_token!, again.app.uid);
    expect(claims.groups_direct).toHaveLength(GROUPS_DIRECT_CAP);
  });
});

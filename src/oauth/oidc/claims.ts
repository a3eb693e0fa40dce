import { avatarUrl } from "../../services/accounts/avatar";
import { getDb } from "../../db/client";
import { groupMemberships as readGroupMemberships, type GroupMembership } from "../../db/group-memberships";
import { findUserById, type UserRow } from "../../db/users";
import type { Bindings } from "../../env";

/**
 * GitLab's OpenID Connect claims (docs/oidc.md, Claims). The profile claims come with `openid`
 * (as GitLab sends them); `email` and `email_verified` only with scope `email` (DESIGN).
 */
const OWNER = 50;
const MAINTAINER = 40;
const DEVELOPER = 30;
export const GROUP_CLAIM_PREFIX = "https://gitlab.org/claims/groups/";

/**
 * The user's groups (src/db/group-memberships.ts: at most GROUP_CLAIMS_CAP, direct memberships
 * first). GitLab's claims list every group; here they are bounded (docs/oidc.md, "Group claims").
 */
export function groupMemberships(env: Bindings, userId: number): Promise<GroupMembership[]> {
  return readGroupMemberships(getDb(env.DB), userId);
}

/** The claims about the person shared by the id_token and userinfo (OIDC Core §5.1). */
/** Claim values this provider sends about a person (serialisable into the family's storage). */
export type PersonClaims = Record<string, string | boolean | string[]>;

export async function userClaims(issuer: string, user: UserRow, scopes: readonly string[]): Promise<PersonClaims> {
  const claims: PersonClaims = {
    sub: String(user.id),
    name: user.name,
    nickname: user.username,
    preferred_username: user.username,
    profile: `${issuer}/${user.username}`,
    // The avatar /api/v4 publishes as avatar_url. No `website`: /api/v4's website_url is always
    // empty here, and OIDC Core §5.1 omits a claim without a value.
    picture: await avatarUrl(user),
  };
  if (scopes.includes("email")) {
    claims.email = user.email;
    // Addresses are set by administrators or at registration here; none is unconfirmed.
    claims.email_verified = true;
  }
  return claims;
}

/** Userinfo's group claims (GitLab): every group, and direct memberships by role. */
export function groupClaims(groups: GroupMembership[]): Record<string, string[]> {
  const directWith = (level: number) => groups.filter((g) => g.direct && g.level === level).map((g) => g.fullPath);
  return {
    groups: groups.map((g) => g.fullPath),
    [`${GROUP_CLAIM_PREFIX}owner`]: directWith(OWNER),
    [`${GROUP_CLAIM_PREFIX}maintainer`]: directWith(MAINTAINER),
    [`${GROUP_CLAIM_PREFIX}developer`]: directWith(DEVELOPER),
  };
}

/** The id_token's groups_direct: the direct memberships, at most GROUPS_DIRECT_CAP (the id_token travels in headers and cookies). */
export const GROUPS_DIRECT_CAP = 100;
export const directGroups = (groups: GroupMembership[]) =>
  groups
    .filter((g) => g.direct)
    .slice(0, GROUPS_DIRECT_CAP)
    .map((g) => g.fullPath);

/**
 * The id_token's claims about the person: the profile (and email) claims and groups_direct. With
 * the user row at hand (the consent request has it) only the groups are read.
 */
export async function subjectClaims(env: Bindings, issuer: string, userOrId: UserRow | number, scopes: readonly string[]): Promise<PersonClaims | null> {
  const userId = typeof userOrId === "number" ? userOrId : userOrId.id;
  const [user, groups] = await Promise.all([typeof userOrId === "number" ? findUserById(getDb(env.DB), userId) : userOrId, groupMemberships(env, userId)]);
  if (!user) return null;
  return { ...(await userClaims(issuer, user, scopes)), groups_direct: directGroups(groups) };
}

/** Every claim this provider can return (Discovery 1.0 §3, claims_supported; docs/oidc.md). */
export const CLAIMS_SUPPORTED = [
  "iss",
  "sub",
  "aud",
  "exp",
  "iat",
  "auth_time",
  "nonce",
  "name",
  "nickname",
  "preferred_username",
  "email",
  "email_verified",
  "profile",
  "groups",
  "groups_direct",
  `${GROUP_CLAIM_PREFIX}owner`,
  `${GROUP_CLAIM_PREFIX}maintainer`,
  `${GROUP_CLAIM_PREFIX}developer`,
];

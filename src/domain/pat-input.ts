import { cleanDisplayName } from "./display-name";
import { SCOPES, checkScopes, type Scope } from "./scopes";

/**
 * Rules for a new personal access token, shared by the admin API and the page: a name, at least
 * one scope that personal access tokens may hold, and an expiry date (mandatory, as GitLab from
 * 16.0) from tomorrow up to one year ahead. The OpenID Connect scopes are for OAuth only.
 */
export const PAT_SCOPES: Scope[] = (Object.keys(SCOPES) as Scope[]).filter((s) => !["openid", "profile", "email"].includes(s));
export const PAT_MAX_LIFETIME_DAYS = 365;

export type PatErrors = Partial<Record<"name" | "scopes" | "expires_at", string[]>>;

const DAY = 86_400_000;
export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The latest expiry date allowed for a token made at `now`. */
export function maxPatExpiry(now: number): string {
  return isoDay(now + PAT_MAX_LIFETIME_DAYS * DAY);
}

export function validatePatInput(
  input: { name: string; /** Parsed by src/domain/scopes.ts parseScopeList. */ scopes: readonly string[]; expiresAt: string | null | undefined },
  now = Date.now(),
): { ok: true; value: { name: string; scopes: string[]; expiresAt: string } } | { ok: false; errors: PatErrors } {
  const errors: PatErrors = {};
  const name = cleanDisplayName(input.name);
  if (!name) errors.name = ["can't be blank"];
  else if (name.length > 255) errors.name = ["is too long (maximum is 255 characters)"];
  const scopes = checkScopes(input.scopes, PAT_SCOPES);
  if (!scopes.ok) errors.scopes = [scopes.reason === "blank" ? "can't be blank" : "can only contain available scopes"];
  const expiresAt = (input.expiresAt ?? "").trim();
  if (!expiresAt) errors.expires_at = ["can't be blank"];
  else if (!/^\d{4}-\d{2}-\d{2}$/.test(expiresAt) || Number.isNaN(Date.parse(`${expiresAt}T00:00:00Z`)) || isoDay(Date.parse(`${expiresAt}T00:00:00Z`)) !== expiresAt) {
    errors.expires_at = ["is not a valid date (YYYY-MM-DD)"];
  } else if (expiresAt <= isoDay(now)) {
    errors.expires_at = ["must be in the future"];
  } else if (expiresAt > maxPatExpiry(now)) {
    errors.expires_at = [`must be before ${maxPatExpiry(now)}`];
  }
  if (Object.keys(errors).length || !scopes.ok) return { ok: false, errors };
  return { ok: true, value: { name, scopes: scopes.scopes, expiresAt } };
}

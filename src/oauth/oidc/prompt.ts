import type { OidcParams } from "./authorize-params";

/**
 * What an authorization request needs from the person, by OIDC Core §3.1.2.1 (prompt, max_age)
 * and GitLab's consent rule (trusted applications skip the consent page). A pure decision: the
 * route gathers the facts and carries it out.
 */
export type PromptDecision =
  | { kind: "sign_in" }
  /** Sign in again (prompt=login, or max_age exceeded): end the session, then sign in. */
  | { kind: "reauthenticate" }
  | { kind: "error"; error: "login_required" | "consent_required"; description: string }
  | { kind: "consent" }
  | { kind: "approve" };

export interface PromptFacts {
  signedIn: boolean;
  /** ms since the epoch; null when signed out. */
  authTime: number | null;
  now: number;
  trusted: boolean;
  /** The person already authorized this application for at least these scopes. */
  previouslyAuthorized: boolean;
}

export function decidePrompt(p: OidcParams, f: PromptFacts): PromptDecision {
  const none = p.prompt.includes("none");
  if (!f.signedIn) {
    return none ? { kind: "error", error: "login_required", description: "The user is not signed in." } : { kind: "sign_in" };
  }
  const tooOld = p.maxAge !== null && f.authTime !== null && f.now - f.authTime > p.maxAge * 1000;
  if (tooOld) {
    return none
      ? { kind: "error", error: "login_required", description: "The user's authentication is older than max_age." }
      : { kind: "reauthenticate" };
  }
  if (p.prompt.includes("login")) return { kind: "reauthenticate" };
  if (p.prompt.includes("consent")) return { kind: "consent" };
  if (f.trusted) return { kind: "approve" };
  if (none) {
    return f.previouslyAuthorized
      ? { kind: "approve" }
      : { kind: "error", error: "consent_required", description: "The user has not authorized this application for these scopes." };
  }
  return { kind: "consent" };
}

/**
 * The authorization request to resume after signing in again: without prompt=login and max_age,
 * which that sign-in has just satisfied (keeping them would ask again forever).
 */
export function afterReauthentication(params: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams(params);
  const prompt = (out.get("prompt") ?? "").split(" ").filter((v) => v && v !== "login");
  if (prompt.length > 0) out.set("prompt", prompt.join(" "));
  else out.delete("prompt");
  out.delete("max_age");
  return out;
}

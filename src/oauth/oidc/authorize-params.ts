/** Reads one parameter of the authorization request (./authorize-request.ts passes it in). */
export type Query = (name: string) => string | undefined;

/**
 * The OpenID Connect parameters of an authorization request (OIDC Core §3.1.2.1): nonce, prompt,
 * max_age. Kept apart from the OAuth validator so each can change without the other.
 */
export interface OidcParams {
  nonce: string | null;
  /** none, login, consent; "none" never with another value (§3.1.2.1). */
  prompt: ("none" | "login" | "consent")[];
  /** Seconds; null when not sent. */
  maxAge: number | null;
}

const PROMPTS = new Set(["none", "login", "consent"]);

export type OidcParamsCheck = { ok: true; value: OidcParams } | { ok: false; description: string };

export function readOidcParams(q: Query): OidcParamsCheck {
  const nonce = q("nonce") || null;
  if (nonce !== null && nonce.length > 512) return { ok: false, description: "The nonce is too long (512 characters at most)." };
  const prompt = [...new Set((q("prompt") ?? "").split(" ").filter(Boolean))];
  if (prompt.some((p) => !PROMPTS.has(p))) return { ok: false, description: "Unsupported prompt value: use none, login or consent." };
  if (prompt.includes("none") && prompt.length > 1) return { ok: false, description: "prompt=none cannot be combined with other values." };
  const rawMaxAge = q("max_age");
  let maxAge: number | null = null;
  if (rawMaxAge !== undefined && rawMaxAge !== "") {
    if (!/^\d{1,9}$/.test(rawMaxAge)) return { ok: false, description: "max_age must be a non-negative number of seconds." };
    maxAge = Number(rawMaxAge);
  }
  return { ok: true, value: { nonce, prompt: prompt as OidcParams["prompt"], maxAge } };
}

/** The hidden fields the consent form echoes (prompt and max_age were settled before it showed). */
export function oidcHiddenFields(p: OidcParams): Record<string, string | null> {
  return { nonce: p.nonce };
}

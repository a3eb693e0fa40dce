import { cleanDisplayName } from "./display-name";
import { checkScopes } from "./scopes";
import { isAcceptableRedirectUri, registeredUris } from "./redirect-uri";

/**
 * The rules for an application's registration, shared by the admin API and /profile/applications:
 * a name, at least one absolute redirect URI without fragment (http: only for loopback unless
 * insecure redirects are allowed), and at least one known scope. Errors are Doorkeeper's words.
 */
export interface ApplicationInput {
  name: string;
  /** One URI per line. */
  redirectUri: string;
  /** Already parsed by src/domain/scopes.ts (each entry point knows its grammar). */
  scopes: readonly string[];
  /** Access-token lifetime in seconds (Doorkeeper's access_token_expires_in); absent: the default. */
  accessTokenExpiresIn?: string | number;
}

export type ApplicationErrors = Partial<Record<"name" | "redirect_uri" | "scopes" | "access_token_expires_in", string[]>>;

/** Bounds of an application's access-token lifetime: one minute to one day (RFC 9700 §4.14: short-lived). */
export const MIN_TOKEN_LIFETIME_SECONDS = 60;
export const MAX_TOKEN_LIFETIME_SECONDS = 86400;

export function validateApplicationInput(
  input: ApplicationInput,
  allowInsecure: boolean,
): { ok: true; value: { name: string; redirectUri: string; scopes: string[]; accessTokenTtlSeconds?: number } } | { ok: false; errors: ApplicationErrors } {
  const errors: ApplicationErrors = {};
  const name = cleanDisplayName(input.name);
  if (!name) errors.name = ["can't be blank"];
  else if (name.length > 255) errors.name = ["is too long (maximum is 255 characters)"];
  const uris = registeredUris(input.redirectUri);
  if (uris.length === 0) errors.redirect_uri = ["can't be blank"];
  else if (uris.length > 20) errors.redirect_uri = ["has too many entries (maximum is 20)"];
  else {
    for (const uri of uris) {
      if (uri.length > 2000 || !isAcceptableRedirectUri(uri, allowInsecure)) {
        let scheme = "";
        try {
          scheme = new URL(uri).protocol;
        } catch {
          // not absolute
        }
        errors.redirect_uri = [
          scheme === "http:" ? "must be an HTTPS/SSL URI." : uri.includes("#") ? "cannot contain a fragment." : "must be an absolute URI.",
        ];
        break;
      }
    }
  }
  const scopes = checkScopes(input.scopes);
  if (!scopes.ok) errors.scopes = [scopes.reason === "blank" ? "can't be blank" : "doesn't match configured on the server."];
  let accessTokenTtlSeconds: number | undefined;
  const ttl = typeof input.accessTokenExpiresIn === "string" ? input.accessTokenExpiresIn.trim() : input.accessTokenExpiresIn;
  if (ttl !== undefined && ttl !== "") {
    const n = typeof ttl === "number" ? ttl : /^\d{1,9}$/.test(ttl) ? Number(ttl) : NaN;
    if (!Number.isInteger(n)) errors.access_token_expires_in = ["must be a whole number of seconds"];
    else if (n < MIN_TOKEN_LIFETIME_SECONDS || n > MAX_TOKEN_LIFETIME_SECONDS) {
      errors.access_token_expires_in = [`must be between ${MIN_TOKEN_LIFETIME_SECONDS} and ${MAX_TOKEN_LIFETIME_SECONDS} seconds`];
    } else accessTokenTtlSeconds = n;
  }
  if (Object.keys(errors).length || !scopes.ok) return { ok: false, errors };
  return { ok: true, value: { name, redirectUri: uris.join("\n"), scopes: scopes.scopes, ...(accessTokenTtlSeconds === undefined ? {} : { accessTokenTtlSeconds }) } };
}

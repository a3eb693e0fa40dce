import { cleanDisplayName } from "./display-name";
import { checkScopes } from "./scopes";
import { isAcceptableRedirectUri, registeredUris } from "./redirect-uri";
import { checkLogoutSettings, type LogoutSettings, type LogoutSettingsInput } from "./logout-settings";
import { checkKeySet, checkKeySetUri, isTokenEndpointAuthMethod, type TokenEndpointAuthMethod } from "./client-key-set";

/**
 * The rules for an application's registration, shared by the admin API and /profile/applications:
 * a name, at least one absolute redirect URI without fragment (http: only for loopback unless
 * insecure redirects are allowed), and at least one known scope. Errors are Doorkeeper's words.
 */
export interface ApplicationInput extends LogoutSettingsInput {
  name: string;
  /** One URI per line. */
  redirectUri: string;
  /** Already parsed by src/domain/scopes.ts (each entry point knows its grammar). */
  scopes: readonly string[];
  /** Access-token lifetime in seconds (Doorkeeper's access_token_expires_in); absent: the default. */
  accessTokenExpiresIn?: string | number;
  /** The client's public keys inline (a JWK Set, object or JSON text); blank or absent: none. */
  jwks?: unknown;
  /** Where the client publishes its public keys; blank or absent: none. */
  jwksUri?: string | null;
  /** How it authenticates at the token endpoint (src/domain/client-key-set.ts); blank or absent: by its kind. */
  tokenEndpointAuthMethod?: string | null;
  /** Whether the client is confidential (a public client authenticates with none; a confidential one never). */
  confidential?: boolean;
}

export type ApplicationErrors = Partial<
  Record<
    "name" | "redirect_uri" | "scopes" | "access_token_expires_in" | "jwks" | "jwks_uri" | "token_endpoint_auth_method" | "post_logout_redirect_uris" | "backchannel_logout_uri",
    string[]
  >
>;

export interface ApplicationKeys {
  /** The JWK Set as stored (JSON text), or null. */
  jwks: string | null;
  jwksUri: string | null;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod | null;
}

export interface CheckedApplication extends ApplicationKeys, LogoutSettings {
  name: string;
  redirectUri: string;
  scopes: string[];
  accessTokenTtlSeconds?: number;
}

/** Options of the deployment: http redirect URIs, and key-set and back-channel logout URLs on a loopback address (development). */
export interface ApplicationInputOptions {
  allowLoopbackKeys?: boolean;
}

/** Bounds of an application's access-token lifetime: one minute to one day (RFC 9700 §4.14: short-lived). */
export const MIN_TOKEN_LIFETIME_SECONDS = 60;
export const MAX_TOKEN_LIFETIME_SECONDS = 86400;

export function validateApplicationInput(
  input: ApplicationInput,
  allowInsecure: boolean,
  options: ApplicationInputOptions = {},
): { ok: true; value: CheckedApplication } | { ok: false; errors: ApplicationErrors } {
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
  const keys = checkKeys(input, options, errors);
  const logout = checkLogoutSettings(input, { allowInsecureRedirects: allowInsecure, allowLoopbackOutbound: options.allowLoopbackKeys ?? false }, errors);
  if (Object.keys(errors).length || !scopes.ok) return { ok: false, errors };
  return {
    ok: true,
    value: { name, redirectUri: uris.join("\n"), scopes: scopes.scopes, ...keys, ...logout, ...(accessTokenTtlSeconds === undefined ? {} : { accessTokenTtlSeconds }) },
  };
}

const blank = (v: unknown) => v === undefined || v === null || (typeof v === "string" && v.trim() === "");

/**
 * RFC 7591 §2: `jwks` and `jwks_uri` are exclusive; `private_key_jwt` needs one of them; a public
 * client authenticates with `none` and a confidential one never does.
 */
function checkKeys(input: ApplicationInput, options: ApplicationInputOptions, errors: ApplicationErrors): ApplicationKeys {
  const out: ApplicationKeys = { jwks: null, jwksUri: null, tokenEndpointAuthMethod: null };
  if (!blank(input.jwks)) {
    const set = checkKeySet(typeof input.jwks === "string" ? input.jwks.trim() : input.jwks);
    if (set.ok) out.jwks = JSON.stringify(set.keySet);
    else errors.jwks = [set.reason];
  }
  if (!blank(input.jwksUri)) {
    const uri = checkKeySetUri(String(input.jwksUri).trim(), options.allowLoopbackKeys ?? false);
    if (uri.ok) out.jwksUri = uri.uri;
    else errors.jwks_uri = [uri.reason];
  }
  if (out.jwks && out.jwksUri) errors.jwks_uri = ["cannot be given together with jwks"];
  if (!blank(input.tokenEndpointAuthMethod)) {
    const method = String(input.tokenEndpointAuthMethod).trim();
    if (!isTokenEndpointAuthMethod(method)) errors.token_endpoint_auth_method = ["is not supported"];
    else if (method === "private_key_jwt" && !out.jwks && !out.jwksUri && !errors.jwks && !errors.jwks_uri) {
      errors.token_endpoint_auth_method = ["private_key_jwt needs jwks or jwks_uri"];
    } else if (input.confidential !== undefined && (method === "none") === input.confidential) {
      errors.token_endpoint_auth_method = [input.confidential ? "none is for public clients" : "a public client authenticates with none"];
    } else out.tokenEndpointAuthMethod = method;
  }
  return out;
}

import { checkOutboundUri } from "./outbound-uri";
import { isAcceptableRedirectUri, registeredUris } from "./redirect-uri";

/**
 * An application's logout settings (OpenID Connect RP-Initiated Logout 1.0 §3.1, Back-Channel
 * Logout 1.0 §2.2), shared by the applications API, /profile/applications and dynamic
 * registration through src/domain/application-input.ts:
 *
 * - `post_logout_redirect_uris`: by the redirect-URI rules (absolute, no fragment, http only for
 *   loopback unless insecure redirects are allowed), at most 20, one per line; the end-session
 *   endpoint matches them exactly (no loopback port variance: the spec says "exactly").
 * - `backchannel_logout_uri`: a URL the server calls, so the outbound rule (./outbound-uri.ts:
 *   https on a public host; loopback http in development). §2.2 allows a query, never a fragment.
 * - `backchannel_logout_session_required`: a boolean; true needs a back-channel URI to mean anything,
 *   but is kept as given (it also puts `sid` in the client's ID tokens).
 */
export interface LogoutSettingsInput {
  /** One URI per line, or a list; blank or absent: none. */
  postLogoutRedirectUris?: string | readonly string[] | null;
  backchannelLogoutUri?: string | null;
  backchannelLogoutSessionRequired?: boolean;
}

export interface LogoutSettings {
  /** One URI per line ("" for none), as stored. */
  postLogoutRedirectUris: string;
  backchannelLogoutUri: string | null;
  backchannelLogoutSessionRequired: boolean;
}

export type LogoutSettingsErrors = Partial<Record<"post_logout_redirect_uris" | "backchannel_logout_uri", string[]>>;

export const MAX_POST_LOGOUT_REDIRECT_URIS = 20;

export function checkLogoutSettings(
  input: LogoutSettingsInput,
  opts: { allowInsecureRedirects: boolean; allowLoopbackOutbound: boolean },
  errors: LogoutSettingsErrors,
): LogoutSettings {
  const raw = input.postLogoutRedirectUris;
  const uris = raw === undefined || raw === null ? [] : typeof raw === "string" ? registeredUris(raw) : raw.map((u) => u.trim()).filter(Boolean);
  if (uris.length > MAX_POST_LOGOUT_REDIRECT_URIS) errors.post_logout_redirect_uris = [`has too many entries (maximum is ${MAX_POST_LOGOUT_REDIRECT_URIS})`];
  else if (uris.some((u) => u.length > 2000 || /\s/.test(u) || !isAcceptableRedirectUri(u, opts.allowInsecureRedirects))) {
    errors.post_logout_redirect_uris = ["must be absolute URIs without a fragment (http only for loopback hosts)"];
  }
  let backchannelLogoutUri: string | null = null;
  const bc = input.backchannelLogoutUri?.trim();
  if (bc) {
    const checked = checkOutboundUri(bc, opts.allowLoopbackOutbound);
    if (checked.ok) backchannelLogoutUri = checked.uri;
    else errors.backchannel_logout_uri = [checked.reason];
  }
  return { postLogoutRedirectUris: uris.join("\n"), backchannelLogoutUri, backchannelLogoutSessionRequired: input.backchannelLogoutSessionRequired === true };
}

/** Whether `uri` is one of the application's registered post-logout redirect URIs, character for character (RP-Initiated Logout §3). */
export function isRegisteredPostLogoutUri(registered: string, uri: string): boolean {
  return registeredUris(registered).includes(uri);
}

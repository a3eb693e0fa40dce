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
}

export type ApplicationErrors = Partial<Record<"name" | "redirect_uri" | "scopes", string[]>>;

export function validateApplicationInput(
  input: ApplicationInput,
  allowInsecure: boolean,
): { ok: true; value: { name: string; redirectUri: string; scopes: string[] } } | { ok: false; errors: ApplicationErrors } {
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
  if (Object.keys(errors).length || !scopes.ok) return { ok: false, errors };
  return { ok: true, value: { name, redirectUri: uris.join("\n"), scopes: scopes.scopes } };
}

import type { Context } from "hono";
import type { AppFormValues } from "./pages/application-views";

/**
 * The application form's fields as posted (the user's page and the admin area's); unchecked boxes
 * are absent. `trusted` is read only where the form offers it (the admin area).
 */
export async function readApplicationForm(c: Context<any>, opts: { trusted?: boolean } = {}): Promise<AppFormValues> {
  const body = await c.req.parseBody({ all: true });
  const one = (v: unknown) => (typeof v === "string" ? v : Array.isArray(v) && typeof v[0] === "string" ? v[0] : "");
  const scopes = ([] as unknown[]).concat(body.scopes ?? []).filter((s): s is string => typeof s === "string");
  return {
    name: one(body.name),
    redirectUri: one(body.redirect_uri),
    scopes,
    confidential: body.confidential !== undefined,
    expireAccessTokens: body.expire_access_tokens !== undefined,
    accessTokenExpiresIn: one(body.access_token_expires_in),
    ...(opts.trusted ? { trusted: body.trusted !== undefined } : {}),
  };
}

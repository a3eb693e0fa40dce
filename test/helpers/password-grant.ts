import { call } from "./fixtures";

/** An OAuth access token for a user through the password grant (default scope api), for tests of token consumers. */
export async function oauthToken(username: string, password: string, scope?: string): Promise<string> {
  const form = new URLSearchParams({ grant_type: "password", username, password });
  if (scope) form.set("scope", scope);
  const res = await call("/oauth/token", { method: "POST", body: form });
  const json = (await res.json()) as { access_token?: string };
  if (!json.access_token) throw new Error(`password grant failed: ${res.status} ${JSON.stringify(json)}`);
  return json.access_token;
}

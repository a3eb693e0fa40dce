import { env } from "cloudflare:test";
import { getDb } from "../../src/db/client";
import { resetRegistrationToken } from "../../src/db/runners";
import { signedInUser } from "./browser";
import { call, json, makeUserWithToken } from "./fixtures";
import { makeProject, makeRunner } from "./resources";
import { makeApp, pkceTokens, REDIRECT } from "../oauth/helpers";

/** One freshly issued token of every kind this service issues, each through its ordinary path. */
export interface IssuedTokens {
  personal_access_token: string;
  oauth_access_token: string;
  oauth_refresh_token: string;
  deploy_token: string;
  oauth_application_secret: string;
  registration_access_token: string;
  runner_authentication_token: string;
  runner_registration_token: string;
  session_cookie: string;
}

let address = 0;

export async function issueEveryKind(): Promise<IssuedTokens & { ownerToken: string; clientUri: string }> {
  const owner = await makeUserWithToken();
  const project = await makeProject(owner.user.id);
  const deploy = await call(`/api/v4/projects/${project.id}/deploy_tokens`, { ...json({ name: "leak", scopes: ["read_repository"] }), token: owner.token });
  if (deploy.status !== 201) throw new Error(`deploy token: ${deploy.status}`);
  const { tokens } = await pkceTokens();
  const { secret } = await makeApp();
  const registered = await call("/oauth/register", {
    method: "POST",
    body: JSON.stringify({ client_name: "leaky", redirect_uris: [REDIRECT] }),
    headers: { "Content-Type": "application/json", "CF-Connecting-IP": `198.18.7.${++address}` },
  });
  const registration = (await registered.json()) as { registration_access_token: string; registration_client_uri: string };
  const { token: runnerToken } = await makeRunner({ runnerType: "project_type", projectId: project.id });
  const { browser } = await signedInUser();
  return {
    ownerToken: owner.token,
    clientUri: registration.registration_client_uri,
    personal_access_token: owner.token,
    oauth_access_token: tokens.access_token,
    oauth_refresh_token: tokens.refresh_token,
    deploy_token: ((await deploy.json()) as { token: string }).token,
    oauth_application_secret: secret,
    registration_access_token: registration.registration_access_token,
    runner_authentication_token: runnerToken,
    runner_registration_token: await resetRegistrationToken(getDb(env.DB), { scopeType: "project", scopeId: project.id }),
    session_cookie: `_edge_auth_session=${browser.cookies.get("_edge_auth_session")}`,
  };
}

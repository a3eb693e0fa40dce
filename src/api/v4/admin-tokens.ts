import { Hono, type Context } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../env";
import { identifyToken, revokeFoundToken, type FoundToken } from "../../services/admin-tokens";
import { applicationEntity } from "./applications";
import { requestActor, requireAdmin, requireAuth, WRITE_API } from "./auth";
import { deployTokenEntity } from "./deploy-tokens";
import { ApiError, notFound } from "./errors";
import { iso } from "./load";
import { patEntity } from "./personal-access-tokens";
import { renderRunner } from "./runner-view";
import { userBasic } from "./user-entities";
import { validateParams } from "./validate";

/**
 * GitLab's Token information API (administrators): `POST /admin/token` tells what a token is,
 * `DELETE /admin/token` ends it (204) by the kind's revoke-or-reset rule; 404 for a value no token
 * has, 422 for a kind this API does not handle. The rules and the audit rows are the service's
 * (src/services/admin-tokens.ts); docs/credentials.md lists the kinds and their prefixes.
 */
const adminTokens = new Hono<AppEnv>();
adminTokens.use("/admin/token", requireAuth(WRITE_API), requireAdmin);

const TokenParams = z.object({ token: z.string().min(1).max(1024) });

/** Each kind's answer: GitLab's entity of the record where GitLab has one. */
async function describe(c: Context<AppEnv>, found: FoundToken): Promise<Record<string, unknown>> {
  switch (found.kind) {
    case "personal_access_token":
      return patEntity(found.pat);
    case "deploy_token":
      return deployTokenEntity(found.deployToken);
    case "oauth_application_secret":
    case "registration_access_token":
      return applicationEntity(found.application);
    case "runner_authentication_token":
      return renderRunner(c, found.runner);
    case "session_cookie":
      return userBasic(found.user, new URL(c.req.url).origin);
    case "oauth_access_token":
    case "oauth_refresh_token": {
      // GitLab's API has no OAuth token entity: the grant's facts, as /oauth/token/info names them.
      const f = found.family;
      return {
        token_type: found.kind,
        application_id: f.applicationUid,
        resource_owner_id: f.userId === 0 ? null : f.userId,
        scopes: [...f.scopes],
        created_at: iso(f.accessCreatedAt),
        expires_at: found.kind === "oauth_access_token" ? iso(f.accessExpiresAt) : null,
        active: f.active,
      };
    }
  }
}

async function findOr404(c: Context<AppEnv>, token: string): Promise<FoundToken> {
  const found = await identifyToken(c.env, token);
  if (!found) throw notFound("Not Found");
  if (found.kind === "unsupported") throw new ApiError(422, { message: "422 Unprocessable Entity: Token type not supported" });
  return found;
}

adminTokens.post("/admin/token", validateParams(TokenParams), async (c) => {
  const found = await findOr404(c, c.req.valid("json").token);
  return c.json(await describe(c, found));
});

adminTokens.delete("/admin/token", validateParams(TokenParams), async (c) => {
  const found = await findOr404(c, c.req.valid("json").token);
  await revokeFoundToken(c.env, requestActor(c), found);
  return c.body(null, 204);
});

export default adminTokens;

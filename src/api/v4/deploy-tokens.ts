import { Hono, type Context } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import { getDeployToken, listDeployTokens, type DeployTokenOwner, type DeployTokenRow } from "../../db/deploy-tokens";
import { isDeployTokenExpired } from "../../domain/deploy-token-input";
import type { AppEnv } from "../../env";
import { createDeployToken, ownerIds, revokeDeployToken, type ManagedOwner } from "../../services/deploy-tokens";
import { READ_API, requestActor, requireAdmin, requireAuth, WRITE_API } from "./auth";
import { ApiError, notFound } from "./errors";
import { iso, loadGroup, loadProject } from "./load";
import { parsePage, setPaginationHeaders } from "./pagination";
import { boolParam, idParam } from "./params";
import { parseParams, validateParams } from "./validate";
import { parseScopeList, parseScopes } from "../../domain/scopes";

/**
 * GitLab's deploy token API for projects and groups (maintainers), and the instance list
 * (administrators). The token is in the creation answer only; afterwards only its hash exists.
 */
const deployTokensApi = new Hono<AppEnv>();

export function deployTokenEntity(t: DeployTokenRow, now = Date.now()) {
  return {
    id: t.id,
    name: t.name,
    username: t.username,
    expires_at: iso(t.expiresAt),
    revoked: t.revoked,
    expired: isDeployTokenExpired(t.expiresAt, now),
    scopes: parseScopes(t.scopes),
  };
}

const ListQuery = z.object({ active: boolParam.optional() }).passthrough();
const NewToken = z.object({
  name: z.string().max(255),
  scopes: z.union([z.string().max(1024), z.array(z.string().max(64)).max(16)]),
  expires_at: z.string().max(40).nullable().optional(),
  username: z.string().max(255).nullable().optional(),
});

async function managedOwner(c: Context<AppEnv>, kind: "projects" | "groups"): Promise<ManagedOwner> {
  if (kind === "projects") return { project: (await loadProject(c, c.req.param("id")!, "admin_project")).project };
  return { group: (await loadGroup(c, c.req.param("id")!, "maintain_group")).group };
}

const ownerOf = async (c: Context<AppEnv>, kind: "projects" | "groups"): Promise<DeployTokenOwner> => ownerIds(await managedOwner(c, kind));

async function respondList(c: Context<AppEnv>, owner: DeployTokenOwner | null) {
  const q = parseParams(ListQuery, c.req.query());
  const page = parsePage(c);
  const now = Date.now();
  const { rows, total } = await listDeployTokens(getDb(c.env.DB), owner, { active: q.active, now, limit: page.perPage, offset: page.offset });
  setPaginationHeaders(c, page, total);
  return c.json(rows.map((t) => deployTokenEntity(t, now)));
}

async function tokenOf(c: Context<AppEnv>, owner: DeployTokenOwner): Promise<DeployTokenRow> {
  const id = idParam.safeParse(c.req.param("token_id"));
  const token = id.success ? await getDeployToken(getDb(c.env.DB), owner, id.data) : null;
  if (!token) throw notFound("Deploy Token Not Found");
  return token;
}

deployTokensApi.get("/deploy_tokens", requireAuth(READ_API), requireAdmin, (c) => respondList(c, null));

for (const kind of ["projects", "groups"] as const) {
  deployTokensApi.get(`/${kind}/:id/deploy_tokens`, requireAuth(READ_API), async (c) => respondList(c, await ownerOf(c, kind)));

  deployTokensApi.post(`/${kind}/:id/deploy_tokens`, requireAuth(WRITE_API), validateParams(NewToken), async (c) => {
    const owner = await managedOwner(c, kind);
    const input = c.req.valid("json");
    const created = await createDeployToken(c.env, requestActor(c), owner, {
      name: input.name,
      scopes: parseScopeList(input.scopes),
      expiresAt: input.expires_at,
      username: input.username,
    });
    if (!created.ok) throw new ApiError(400, { message: created.errors });
    return c.json({ ...deployTokenEntity(created.row), token: created.token }, 201);
  });

  deployTokensApi.get(`/${kind}/:id/deploy_tokens/:token_id`, requireAuth(READ_API), async (c) => c.json(deployTokenEntity(await tokenOf(c, await ownerOf(c, kind)))));

  deployTokensApi.delete(`/${kind}/:id/deploy_tokens/:token_id`, requireAuth(WRITE_API), async (c) => {
    await revokeDeployToken(c.env, requestActor(c), await tokenOf(c, await ownerOf(c, kind)));
    return c.body(null, 204);
  });
}

export default deployTokensApi;

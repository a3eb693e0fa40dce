import { Hono } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import { findUserById } from "../../db/users";
import type { AppEnv } from "../../env";
import { CORE, endpointProblem, isPluginName } from "../../domain/plugin-registration";
import { insertPlugin, listPlugins, type PluginRow } from "../../db/plugins";
import { READ_API, requireAuth, WRITE_API } from "./auth";
import { badRequest, conflict, forbidden, invalidParam, notFound } from "./errors";
import { parsePage, setPaginationHeaders } from "./pagination";
import { validate } from "./validate";
import { idParam } from "./params";

/**
 * The plugin registry (docs/plugin-protocol.md, "Routing"): POST registers a plugin owned by the
 * caller (an administrator may register one for another user with owner_id); GET lists the
 * caller's plugins, or every plugin for an administrator.
 */
const plugins = new Hono<AppEnv>();

function pluginJson(p: PluginRow) {
  return {
    id: p.id,
    name: p.name,
    owner_id: p.ownerId,
    endpoint: p.endpoint,
    description: p.description,
    created_at: new Date(p.createdAt).toISOString(),
  };
}

const NewPlugin = z.object({
  name: z.string(),
  endpoint: z.string().max(2048).optional(),
  description: z.string().max(1024).optional(),
  owner_id: idParam.optional(),
});

plugins.post("/plugins", requireAuth(WRITE_API), validate("json", NewPlugin), async (c) => {
  const body = c.req.valid("json");
  const principal = c.get("principal");
  if (!isPluginName(body.name) || body.name === CORE) {
    throw badRequest({ name: ["must be 1-64 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit, and not core"] });
  }
  const endpoint = body.endpoint ?? "";
  const problem = endpointProblem(endpoint);
  if (problem) throw badRequest({ endpoint: [problem] });
  let ownerId = principal.user.id;
  if (body.owner_id !== undefined && body.owner_id !== ownerId) {
    if (!principal.user.isAdmin) throw forbidden();
    if (!(await findUserById(getDb(c.env.DB), body.owner_id))) throw notFound("User Not Found");
    ownerId = body.owner_id;
  }
  const row = await insertPlugin(getDb(c.env.DB), { name: body.name, ownerId, endpoint, description: body.description ?? "" });
  if (!row) throw conflict({ name: ["has already been taken"] });
  return c.json(pluginJson(row), 201);
});

plugins.get("/plugins", requireAuth(READ_API), async (c) => {
  const principal = c.get("principal");
  const page = parsePage(c);
  const ownerParam = c.req.query("owner_id");
  let ownerId: number | null = principal.user.isAdmin ? null : principal.user.id;
  if (ownerParam !== undefined) {
    const n = idParam.safeParse(ownerParam).data;
    if (n === undefined) throw invalidParam("owner_id");
    if (n !== principal.user.id && !principal.user.isAdmin) throw forbidden();
    ownerId = n;
  }
  const { rows, total } = await listPlugins(getDb(c.env.DB), ownerId, { limit: page.perPage, offset: page.offset });
  setPaginationHeaders(c, page, total);
  return c.json(rows.map(pluginJson));
});

export default plugins;

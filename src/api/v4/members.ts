import { Hono, type Context } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import { findMember, listMembers, type MemberView } from "../../db/namespaces";
import { addMember, removeMember, updateMember, type MembershipSource } from "../../services/memberships";
import type { AppEnv } from "../../env";
import { READ_API, requestActor, requireAuth, WRITE_API } from "./auth";
import { notFound } from "./errors";
import { iso, loadGroup, loadProject, webUrl } from "./load";
import { parseParams, readParams } from "./validate";
import { parsePage, setPaginationHeaders } from "./pagination";
import { idParam, intParam } from "./params";

/** Members of projects and groups with GitLab access levels (direct memberships). */
const membersApp = new Hono<AppEnv>();

const renderMember = (c: Context, m: MemberView) => ({
  id: m.userId,
  username: m.username,
  name: m.name,
  state: m.state,
  access_level: m.accessLevel,
  expires_at: m.expiresAt,
  created_at: iso(m.createdAt),
  web_url: webUrl(c, m.username),
  avatar_url: null,
});

const accessLevel = intParam().refine((n) => [10, 20, 30, 40, 50].includes(n));
const expiresAt = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).nullable().optional();
const AddMember = z.object({ user_id: idParam, access_level: accessLevel, expires_at: expiresAt });
const EditMember = z.object({ access_level: accessLevel, expires_at: expiresAt });
const userIdParam = idParam;

type Kind = "project" | "group";
/** The id of a source the caller may see (read_project, read_group). */
async function readableSource(c: Context<AppEnv>, kind: Kind): Promise<number> {
  const id = c.req.param("id")!;
  if (kind === "project") return (await loadProject(c, id, "read_project")).project.id;
  return (await loadGroup(c, id, "read_group")).group.id;
}

/** The source checked for managing its members (admin_project: maintainer; admin_group: owner) and the caller's level. */
async function managedSource(c: Context<AppEnv>, kind: Kind): Promise<MembershipSource> {
  const id = c.req.param("id")!;
  if (kind === "project") {
    const { project, access } = await loadProject(c, id, "admin_project");
    return { kind, row: project, actorLevel: access.level };
  }
  const { group, access } = await loadGroup(c, id, "admin_group");
  return { kind, row: group, actorLevel: access.level };
}

for (const kind of ["project", "group"] as const) {
  const base = `/${kind}s/:id/members`;

  membersApp.get(base, requireAuth(READ_API), async (c) => {
    const sourceId = await readableSource(c, kind);
    const page = parsePage(c);
    const { rows, total, hasNext } = await listMembers(getDb(c.env.DB), kind, sourceId, { limit: page.perPage, offset: page.offset });
    setPaginationHeaders(c, page, total, hasNext);
    return c.json(rows.map((m) => renderMember(c, m)));
  });

  membersApp.get(`${base}/:user_id`, requireAuth(READ_API), async (c) => {
    const sourceId = await readableSource(c, kind);
    const userId = parseParams(userIdParam, c.req.param("user_id"));
    const m = await findMember(getDb(c.env.DB), kind, sourceId, userId);
    if (!m) throw notFound();
    return c.json(renderMember(c, m));
  });

  membersApp.post(base, requireAuth(WRITE_API), async (c) => {
    const src = await managedSource(c, kind);
    const input = parseParams(AddMember, await readParams(c));
    const member = await addMember(c.env, requestActor(c), src, { userId: input.user_id, accessLevel: input.access_level, expiresAt: input.expires_at ?? null });
    return c.json(renderMember(c, member), 201);
  });

  membersApp.put(`${base}/:user_id`, requireAuth(WRITE_API), async (c) => {
    const src = await managedSource(c, kind);
    const userId = parseParams(userIdParam, c.req.param("user_id"));
    const input = parseParams(EditMember, await readParams(c));
    const member = await updateMember(c.env, requestActor(c), src, userId, { accessLevel: input.access_level, expiresAt: input.expires_at });
    return c.json(renderMember(c, member));
  });

  membersApp.delete(`${base}/:user_id`, requireAuth(WRITE_API), async (c) => {
    const src = await managedSource(c, kind);
    const userId = parseParams(userIdParam, c.req.param("user_id"));
    await removeMember(c.env, requestActor(c), src, userId);
    return c.body(null, 204);
  });
}

export default membersApp;

import { Hono, type Context } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import { ancestorPaths, createIteration, listIterations, overlapping, type IterationRow } from "../../db/iterations";
import { groupAncestry } from "../../db/projects";
import { iterationState, parseIterationStateFilter, STATE_NUMBER, todayUtc } from "../../domain/iterations";
import type { AppEnv } from "../../env";
import { gate } from "../../http/gate";
import { READ_API, requireAdmin, requireAuth, WRITE_API } from "./auth";
import { ApiError, invalidParam } from "./errors";
import { iso, loadGroup, loadProject, webUrl } from "./load";
import { parseParams, queryParams, readParams } from "./validate";
import { parsePage, setPaginationHeaders } from "./pagination";
import { coerceBool } from "./params";

/** Iterations API (GitLab): state derives from the dates; state=started below 15.0 only (iterations-state-started). */
const iterationsApp = new Hono<AppEnv>();

function renderIteration(c: Context, it: IterationRow, groupPath: string | undefined, today: string) {
  const state = iterationState(it.startDate, it.dueDate, today);
  return {
    id: it.id,
    iid: it.iid,
    sequence: it.iid,
    group_id: it.groupId,
    title: it.title,
    description: it.description,
    state: STATE_NUMBER[state],
    created_at: iso(it.createdAt),
    updated_at: iso(it.updatedAt),
    start_date: it.startDate,
    due_date: it.dueDate,
    web_url: webUrl(c, `groups/${groupPath ?? it.groupId}/-/iterations/${it.id}`),
  };
}

const ListQuery = z.object({ state: z.string().optional(), search: z.string().optional(), include_ancestors: z.string().optional() });

async function respond(c: Context<AppEnv>, groupId: number, groupPaths: Map<number, string>) {
  const q = parseParams(ListQuery, queryParams(c));
  const g = gate(c);
  const filter = parseIterationStateFilter(q.state, g.version);
  if (filter.deprecated) g.markDeprecated("iterations-state-started");
  const db = getDb(c.env.DB);
  const ids = coerceBool(q.include_ancestors) === false ? [groupId] : await groupAncestry(db, groupId);
  const today = todayUtc();
  const page = parsePage(c);
  const { rows, total } = await listIterations(db, ids, { states: filter.states, today, search: q.search }, { limit: page.perPage, offset: page.offset });
  setPaginationHeaders(c, page, total);
  return c.json(rows.map((r) => renderIteration(c, r, groupPaths.get(r.groupId), today)));
}

const pathsOf = (c: Context<AppEnv>, groupId: number) => ancestorPaths(getDb(c.env.DB), groupId);

iterationsApp.get("/groups/:id/iterations", requireAuth(READ_API), async (c) => {
  const { group } = await loadGroup(c, c.req.param("id"));
  return respond(c, group.id, await pathsOf(c, group.id));
});

iterationsApp.get("/projects/:id/iterations", requireAuth(READ_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"));
  // Iterations belong to groups: a project in a personal namespace has none.
  if (project.namespaceKind !== "group") {
    parseParams(ListQuery, queryParams(c));
    const page = parsePage(c);
    setPaginationHeaders(c, page, 0);
    return c.json([]);
  }
  return respond(c, project.namespaceId, await pathsOf(c, project.namespaceId));
});

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)));
const CreateIteration = z.object({
  title: z.string().max(255).optional(),
  description: z.string().max(10_000).default(""),
  start_date: date,
  due_date: date,
});

/** This service's extension (documented in docs/rest-api.md): administrators create iterations. */
iterationsApp.post("/groups/:id/iterations", requireAuth(WRITE_API), requireAdmin, async (c) => {
  const { group } = await loadGroup(c, c.req.param("id"));
  const input = parseParams(CreateIteration, await readParams(c));
  if (input.due_date < input.start_date) throw invalidParam("due_date", "must be greater than start date");
  const db = getDb(c.env.DB);
  if (await overlapping(db, group.id, input.start_date, input.due_date)) {
    throw new ApiError(400, { message: { base: ["Dates cannot overlap with other existing Iterations within this iterations cadence"] } });
  }
  const it = await createIteration(db, { groupId: group.id, title: input.title ?? null, description: input.description, startDate: input.start_date, dueDate: input.due_date });
  return c.json(renderIteration(c, it, group.fullPath, todayUtc()), 201);
});

export default iterationsApp;

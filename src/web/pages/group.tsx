import { type Context } from "hono";
import { getDb } from "../../db/client";
import { findIteration } from "../../db/iterations";
import { listGroups, listProjects } from "../../db/namespace-listing";
import type { GroupRow } from "../../db/projects";
import { checkGroup, sessionAsker, type GroupAccess } from "../../services/abilities";
import { GroupList, Pager, pageNumber, ProjectList } from "../namespace-lists";
import { Flash, renderPage, takeFlash, type VisitorEnv } from "../page";
import { notFoundPage } from "./not-found";
import { pageApp } from "../door";

/**
 * /groups/<full path> (GitLab's path, the `web_url` of a group): the group's subgroups and
 * projects that the viewer may see, and for members who may create there, the links to create a
 * subgroup or a project in it. /groups/<full path>/-/iterations/<id> is an iteration's page (the
 * iteration's `web_url`). A group the viewer may not see answers as one that does not exist; an
 * anonymous visitor is sent to sign in first (the `visitor` door's refusal, src/web/door.ts).
 */
const groupPages = pageApp<VisitorEnv>({ enter: "visitor" });
const PER_PAGE = 20;

type Ctx = Context<VisitorEnv>;

async function groupPage(c: Ctx, access: GroupAccess) {
  const group = access.row;
  // As POST /api/v4/projects and /groups: developers create projects in a group, owners create subgroups.
  const [createsProjects, createsSubgroups] = [access.can("create_projects"), access.can("admin_group")];
  const db = getDb(c.env.DB);
  const user = c.var.user;
  const viewer = { userId: user?.id ?? 0, isAdmin: user?.isAdmin ?? false, membershipOnly: false };
  const page = pageNumber(c.req.query("page"));
  const [subgroups, projects] = await Promise.all([
    listGroups(db, viewer, { orderBy: "name", sort: "asc", limit: 100, offset: 0 }, { parentId: group.id }),
    listProjects(db, viewer, { groupId: group.id }, { orderBy: "last_activity_at", sort: "desc", limit: PER_PAGE, offset: (page - 1) * PER_PAGE }),
  ]);
  const base = `/groups/${group.fullPath}`;
  return renderPage(
    c,
    group.name,
    <>
      <h1>
        <bdi>{group.name}</bdi>
      </h1>
      <p class="muted">
        <span class="id">{group.fullPath}</span> <span class="badge">{group.visibility}</span>
      </p>
      <Flash kind="notice" message={takeFlash(c)} />
      {group.description ? <p>{group.description}</p> : null}
      {createsProjects || createsSubgroups ? (
        <p class="actions">
          {createsProjects ? (
            <a class="button" href={`/projects/new?namespace_id=${group.id}`}>
              New project
            </a>
          ) : null}
          {createsSubgroups ? (
            <a class="button secondary" href={`/groups/new?parent_id=${group.id}`}>
              New subgroup
            </a>
          ) : null}
        </p>
      ) : null}
      <h2>Subgroups</h2>
      <GroupList groups={subgroups.rows} empty="This group has no subgroups you can see." />
      <h2>Projects</h2>
      <ProjectList projects={projects.rows} empty="This group has no projects you can see." />
      <Pager path={base} page={page} hasNext={projects.hasNext} />
    </>,
  );
}

async function iterationPage(c: Ctx, group: GroupRow, rawId: string) {
  const id = /^[1-9][0-9]{0,15}$/.test(rawId) ? Number(rawId) : 0;
  const iteration = id ? await findIteration(getDb(c.env.DB), group.id, id) : null;
  if (!iteration) return notFoundPage(c);
  return renderPage(
    c,
    `${iteration.title ?? `Iteration ${iteration.iid}`} · ${group.name}`,
    <>
      <h1>
        <bdi>{iteration.title ?? `Iteration ${iteration.iid}`}</bdi>
      </h1>
      <p class="muted">
        Iteration of <a href={`/groups/${group.fullPath}`}>{group.fullPath}</a>
      </p>
      <dl>
        <dt>Starts</dt>
        <dd>{iteration.startDate}</dd>
        <dt>Due</dt>
        <dd>{iteration.dueDate}</dd>
      </dl>
      {iteration.description ? <p>{iteration.description}</p> : null}
    </>,
  );
}

groupPages.get("/groups/*", async (c) => {
  const rest = c.req.path.slice("/groups/".length).replace(/\/+$/, "");
  const [fullPath = "", section = ""] = rest.split("/-/", 2);
  // Not found when the viewer may not see it (existence is not revealed), the door's refusal renders it.
  const { access } = await checkGroup(c.env, sessionAsker(c.var.user), fullPath, "read_group");
  if (section === "") return groupPage(c, access);
  const iteration = /^iterations\/([^/]+)$/.exec(section);
  if (iteration) return iterationPage(c, access.row, iteration[1]!);
  return notFoundPage(c);
});

export default groupPages;

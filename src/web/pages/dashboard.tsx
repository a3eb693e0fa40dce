import { getDb } from "../../db/client";
import { listGroups, projectsByActivity } from "../../db/namespace-listing";
import { GroupList, Pager, pageNumber, ProjectList } from "../namespace-lists";
import { renderPage, type PageEnv } from "../page";
import { pageApp } from "../door";
import { notFoundPage } from "./not-found";

/**
 * /dashboard/projects and /dashboard/groups (GitLab's paths): the signed-in person's projects
 * (their own, their memberships' and their groups') and groups, through the listing the REST
 * API's `membership=true` uses.
 */
const dashboard = pageApp({ enter: "signed-in" });
const PER_PAGE = 20;

dashboard.get("/dashboard/projects", async (c) => {
  const page = pageNumber(c.req.query("page"));
  const user = c.var.user;
  const { rows, hasNext } = await projectsByActivity(getDb(c.env.DB), { userId: user.id, isAdmin: user.isAdmin, membershipOnly: true }, page, PER_PAGE);
  return renderPage(
    c,
    "Projects",
    <>
      <h1>Projects</h1>
      <p>
        Your projects and those of your groups. <a href="/explore/projects">Explore</a> the others you can see.
      </p>
      <p class="actions">
        <a class="button" href="/projects/new">
          New project
        </a>
      </p>
      <ProjectList projects={rows} empty="You are not a member of any project yet." />
      <Pager path="/dashboard/projects" page={page} hasNext={hasNext} />
    </>,
  );
});

dashboard.get("/dashboard/groups", async (c) => {
  const page = pageNumber(c.req.query("page"));
  const user = c.var.user;
  const { rows, hasNext } = await listGroups(getDb(c.env.DB), { userId: user.id, isAdmin: user.isAdmin, membershipOnly: true }, {
    orderBy: "name",
    sort: "asc",
    limit: PER_PAGE,
    offset: (page - 1) * PER_PAGE,
  });
  return renderPage(
    c,
    "Groups",
    <>
      <h1>Groups</h1>
      <p>The groups you are a member of, and their subgroups.</p>
      <p class="actions">
        <a class="button" href="/groups/new">
          New group
        </a>
      </p>
      <GroupList groups={rows} empty="You are not a member of any group." />
      <Pager path="/dashboard/groups" page={page} hasNext={hasNext} />
    </>,
  );
});

// Last: any other dashboard path is behind the same door (a visitor signs in first), then "Page not found".
dashboard.get("/dashboard/*", (c) => notFoundPage(c));

export default dashboard;

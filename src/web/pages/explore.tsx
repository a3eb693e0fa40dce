import { Hono } from "hono";
import { eq } from "drizzle-orm";
import { getDb } from "../../db/client";
import { listProjects, type Viewer } from "../../db/namespace-listing";
import { projects } from "../../db/schema/projects";
import type { AppEnv } from "../../env";
import { Pager, pageNumber, ProjectList } from "../namespace-lists";
import { renderPage } from "../page";
import { currentUser } from "../session";

/**
 * /explore/projects (GitLab's path): the projects the viewer may see. A visitor sees the public
 * ones; a signed-in person also the internal ones and their own, as `GET /api/v4/projects` lists.
 */
const explore = new Hono<AppEnv>();
const PER_PAGE = 20;

explore.get("/explore", (c) => c.redirect("/explore/projects", 302));

explore.get("/explore/projects", async (c) => {
  const page = pageNumber(c.req.query("page"));
  const user = await currentUser(c);
  // A visitor is nobody's member (no user has id 0) and is shown public projects only.
  const viewer: Viewer = user ? { userId: user.id, isAdmin: user.isAdmin, membershipOnly: false } : { userId: 0, isAdmin: false, membershipOnly: false };
  const extra = user ? [] : [eq(projects.visibility, "public")];
  const { rows, hasNext } = await listProjects(getDb(c.env.DB), viewer, extra, {
    orderBy: "last_activity_at",
    sort: "desc",
    limit: PER_PAGE,
    offset: (page - 1) * PER_PAGE,
  });
  return renderPage(
    c,
    "Explore projects",
    <>
      <h1>Explore projects</h1>
      <p>{user ? "Every project you can see." : "Public projects. Sign in to see the others you have access to."}</p>
      <ProjectList projects={rows} empty="No projects to show." />
      <Pager path="/explore/projects" page={page} hasNext={hasNext} />
    </>,
  );
});

export default explore;

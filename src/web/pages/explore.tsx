import { getDb } from "../../db/client";
import { projectsByActivity } from "../../db/namespace-listing";
import type { AppEnv } from "../../env";
import { Pager, pageNumber, ProjectList } from "../namespace-lists";
import { renderPage } from "../page";
import { currentUser } from "../session";
import { pageApp } from "../door";

/**
 * /explore/projects (GitLab's path): the projects the viewer may see. A visitor sees the public
 * ones; a signed-in person also the internal ones and their own, as `GET /api/v4/projects` lists.
 */
const explore = pageApp<AppEnv>({ enter: "anyone" });
const PER_PAGE = 20;

explore.get("/explore", (c) => c.redirect("/explore/projects", 302));

explore.get("/explore/projects", async (c) => {
  const page = pageNumber(c.req.query("page"));
  const user = await currentUser(c);
  const viewer = user ? { userId: user.id, isAdmin: user.isAdmin, membershipOnly: false } : null;
  const { rows, hasNext } = await projectsByActivity(getDb(c.env.DB), viewer, page, PER_PAGE);
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

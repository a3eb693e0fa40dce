import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { createIssue } from "../../src/db/issues";
import { addMember, createGroup, createProject } from "../../src/db/namespaces";
import { createProjectRepository } from "../../src/git/provisioning";
import { Browser, textOf } from "../helpers/browser";
import { call, makeUser, TEST_PASSWORD, unique } from "../helpers/fixtures";

/**
 * DESIGN "Pages people find their way through", with GitLab's visibility: a public project's
 * sub-pages (files, commits, records, container registry) are open to anonymous visitors, as its
 * overview, the Repository API and `docker pull` are; a private project's send them to sign in
 * (GitLab does not say whether it exists), and a signed-in stranger still gets "not found".
 */
async function projectWith(visibility: "public" | "private") {
  const db = getDb(env.DB);
  const owner = await makeUser();
  const path = unique("pp");
  const project = await createProject(db, { name: `Project ${path}`, path, namespace: { kind: "user", id: owner.id, fullPath: owner.username }, visibility, description: "", creatorId: owner.id });
  await addMember(db, "project", project.id, owner.id, 50, null);
  await createProjectRepository(env, project, { message: "Initial commit", author: { name: owner.name, email: owner.email }, files: { "README.md": "# Public pages\n" } });
  const issue = await createIssue(db, { projectId: project.id, title: "A visible problem", description: "", authorId: owner.id });
  const base = `/${project.pathWithNamespace}`;
  const group = await createGroup(db, { name: `Group ${path}`, path: unique("pg"), parent: null, visibility, description: "", ownerId: owner.id });
  return { base, pages: [base, `${base}/-/tree/main`, `${base}/-/blob/main/README.md`, `${base}/-/issues/${issue.iid}`, `${base}/container_registry`, `/groups/${group.fullPath}`] };
}

describe("page visibility follows the project's (GitLab): anonymous visitors on public and private projects", () => {
  it("an anonymous visitor reads a public project's overview, files, issue and container registry and a public group's page (200), with no delete form", async () => {
    const { base, pages } = await projectWith("public");
    for (const page of pages) {
      const res = await call(page);
      expect(res.status, page).toBe(200);
    }
    expect(textOf(await (await call(`${base}/-/blob/main/README.md`)).text())).toContain("# Public pages");
    const registry = await (await call(`${base}/container_registry`)).text();
    expect(registry).not.toContain("/delete");
    // The overview leads to what the visitor may open, the container registry included.
    expect(await (await call(base)).text()).toContain(`href="${base}/container_registry"`);
  });

  it("an anonymous visitor of a private project's pages and a private group's page is sent to sign in and back; a signed-in stranger gets the ordinary 404 page", async () => {
    const { pages } = await projectWith("private");
    const stranger = await makeUser();
    const browser = new Browser();
    expect((await browser.signIn(stranger.username, TEST_PASSWORD, "/")).status).toBe(303);
    for (const page of pages) {
      const res = await call(page, { redirect: "manual" });
      expect(res.status, page).toBe(302);
      expect(res.headers.get("location"), page).toBe(`/users/sign_in?redirect_to=${encodeURIComponent(page)}`);
      const hidden = await browser.get(page);
      expect(hidden.status, page).toBe(404);
      // The ordinary 404 page, as for a mistyped address: nothing says a project is there.
      expect(textOf(await hidden.text()), page).toContain("There is nothing at this address");
    }
  });

  it("a signed-in user whose password expired is sent to choose a new one from a public project's overview and a public group's page, as from every other page", async () => {
    const { base, pages } = await projectWith("public");
    const user = await makeUser();
    const browser = new Browser();
    expect((await browser.signIn(user.username, TEST_PASSWORD, "/")).status).toBe(303);
    await env.DB.prepare("UPDATE users SET password_expires_at = ? WHERE id = ?").bind(Date.now() - 1000, user.id).run();
    for (const page of [base, pages.at(-1)!]) {
      const res = await browser.get(page);
      expect(res.status, page).toBe(302);
      expect(res.headers.get("location"), page).toBe(`/profile/password/new?redirect_to=${encodeURIComponent(page)}`);
    }
  });
});

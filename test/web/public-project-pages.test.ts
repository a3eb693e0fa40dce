import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { createIssue } from "../../src/db/issues";
import { addMember, createProject } from "../../src/db/namespaces";
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
  return { base, pages: [`${base}/-/tree/main`, `${base}/-/blob/main/README.md`, `${base}/-/issues/${issue.iid}`, `${base}/container_registry`] };
}

describe("page visibility follows the project's (GitLab): anonymous visitors on public and private projects", () => {
  it("an anonymous visitor reads a public project's files, issue and container registry (200), with no delete form", async () => {
    const { base, pages } = await projectWith("public");
    for (const page of pages) {
      const res = await call(page);
      expect(res.status, page).toBe(200);
    }
    expect(textOf(await (await call(`${base}/-/blob/main/README.md`)).text())).toContain("# Public pages");
    const registry = await (await call(`${base}/container_registry`)).text();
    expect(registry).not.toContain("/delete");
  });

  it("an anonymous visitor of a private project's pages is sent to sign in and back; a signed-in stranger gets 404", async () => {
    const { pages } = await projectWith("private");
    const stranger = await makeUser();
    const browser = new Browser();
    expect((await browser.signIn(stranger.username, TEST_PASSWORD, "/")).status).toBe(303);
    for (const page of pages) {
      const res = await call(page, { redirect: "manual" });
      expect(res.status, page).toBe(302);
      expect(res.headers.get("location"), page).toBe(`/users/sign_in?redirect_to=${encodeURIComponent(page)}`);
      expect((await browser.get(page)).status, page).toBe(404);
    }
  });
});

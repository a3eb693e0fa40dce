import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { createIssue } from "../../src/db/issues";
import { createIteration } from "../../src/db/iterations";
import { createMergeRequest } from "../../src/db/merge-requests";
import { addMember, createGroup, createProject } from "../../src/db/namespaces";
import { addPackageFile, createPipeline, findOrCreatePackage } from "../../src/db/packages";
import { createProjectRepository } from "../../src/git/provisioning";
import { Browser, textOf } from "../helpers/browser";
import { call, makePat, makeUser, TEST_PASSWORD, unique } from "../helpers/fixtures";
import { gql } from "../graphql/helpers";

/**
 * DESIGN "Pages people find their way through": every `web_url`, `avatar_url` and `_links` URL the
 * REST and GraphQL answers carry opens a page. A group, subgroup, project with a repository, merge
 * request, issue, pipeline, package and iteration are made; the APIs are asked about them; every URL
 * of this origin in their answers is fetched signed in and must be a page (200).
 */

async function world() {
  const db = getDb(env.DB);
  const owner = await makeUser();
  const groupPath = unique("lg");
  const group = await createGroup(db, { name: `Group ${groupPath}`, path: groupPath, parent: null, visibility: "private", description: "A group", ownerId: owner.id });
  const sub = await createGroup(db, { name: "Sub", path: unique("sub"), parent: group, visibility: "private", description: "", ownerId: owner.id });
  const path = unique("lp");
  const project = await createProject(db, { name: `Project ${path}`, path, namespace: { kind: "group", id: group.id, fullPath: group.fullPath }, visibility: "private", description: "", creatorId: owner.id });
  await addMember(db, "project", project.id, owner.id, 50, null);
  await createProjectRepository(env, project, { message: "Initial commit", author: { name: owner.name, email: owner.email }, files: { "README.md": "# Linked\n\nThe README shown on the project page.\n", "main.txt": "x\n" } });
  const pipeline = await createPipeline(db, { projectId: project.id, sha: "a".repeat(40), ref: "main", userId: owner.id });
  const pkg = await findOrCreatePackage(db, project.id, "tool", "1.0.0", "generic", "default");
  await addPackageFile(db, { packageId: pkg.id, fileName: "tool.txt", size: 3, fileSha256: "b".repeat(64), r2Key: `packages/${project.id}/${pkg.id}/x`, pipelineId: pipeline.id });
  const mr = await createMergeRequest(db, { projectId: project.id, title: "A change", description: "Why", sourceBranch: "feature", targetBranch: "main", authorId: owner.id, assigneeId: owner.id, labels: "x", sha: pipeline.sha });
  const issue = await createIssue(db, { projectId: project.id, title: "A problem", description: "", authorId: owner.id });
  await createIteration(db, { groupId: group.id, title: "Sprint", description: "", startDate: "2026-01-01", dueDate: "2026-01-14" });
  const browser = new Browser();
  expect((await browser.signIn(owner.username, TEST_PASSWORD, "/")).status).toBe(303);
  return { owner, group, sub, project, mr, issue, pipeline, pkg, browser, token: await makePat(owner.id, ["api"]) };
}

/**
 * Every string under a key named web_url, webUrl, avatar_url or web_path, or inside _links, anywhere
 * in the value; an `_links` member that names an API endpoint (`delete_api_path`) is for clients, not a page.
 */
function linksIn(value: unknown, key = ""): string[] {
  const link = /^(web_url|webUrl|avatar_url|web_path)$/.test(key) || (key.startsWith("_links.") && !key.includes("api"));
  if (typeof value === "string") return link ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((v) => linksIn(v, key));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => linksIn(v, key === "_links" ? `_links.${k}` : k));
  return [];
}

describe("DESIGN: every link the API hands out opens a page", () => {
  it("walks the web_url, avatar_url and _links of REST and GraphQL answers and gets a page (200) for each", async () => {
    const w = await world();
    const id = w.project.id;
    const rest = [
      "/api/v4/user",
      `/api/v4/users/${w.owner.id}`,
      `/api/v4/groups/${w.group.id}`,
      `/api/v4/groups/${w.sub.id}`,
      `/api/v4/groups/${w.group.id}/iterations`,
      `/api/v4/projects/${id}`,
      `/api/v4/projects/${id}/members`,
      `/api/v4/projects/${id}/merge_requests`,
      `/api/v4/projects/${id}/packages`,
      `/api/v4/projects/${id}/packages/${w.pkg.id}/pipelines`,
      `/api/v4/projects/${id}/repository/branches`,
      `/api/v4/projects/${id}/repository/commits`,
    ];
    const links: string[] = [];
    for (const path of rest) {
      const res = await call(path, { token: w.token });
      expect(res.status, path).toBe(200);
      links.push(...linksIn(await res.json()));
    }
    const g = await gql(
      `query($p: ID!, $g: ID!) { currentUser { webUrl } group(fullPath: $g) { webUrl }
         project(fullPath: $p) { webUrl mergeRequests { nodes { webUrl author { webUrl } mergeUser { webUrl } } } issues { nodes { webUrl author { webUrl } } } } }`,
      { token: w.token, variables: { p: w.project.pathWithNamespace, g: w.group.fullPath } },
    );
    expect(g.body.errors).toBeUndefined();
    links.push(...linksIn(g.body.data));

    const ours = [...new Set(links.filter((u) => u.startsWith("http://localhost/") || u.startsWith("/")))];
    // Every kind of link was seen: user, group, project, merge request, issue, pipeline, package, branch, commit, iteration.
    for (const part of ["/-/merge_requests/", "/-/issues/", "/-/pipelines/", "/-/packages/", "/-/tree/", "/-/commit/", "/-/iterations/", "/groups/", `/${w.owner.username}`]) {
      expect(ours.some((u) => u.includes(part)), part).toBe(true);
    }
    for (const url of ours) {
      const res = await w.browser.get(new URL(url, "http://localhost").pathname);
      expect(res.status, url).toBe(200);
      expect(res.headers.get("content-type"), url).toContain("text/html");
    }
    // The rest are avatars on Gravatar (src/services/accounts/avatar.ts), the only other host.
    for (const url of links.filter((u) => !ours.includes(u))) expect(new URL(url).host, url).toBe("www.gravatar.com");
  });
});

describe("Read-only pages at GitLab's paths", () => {
  it("the project page lists the files of the default branch and shows the README as text", async () => {
    const w = await world();
    const html = await (await w.browser.get(`/${w.project.pathWithNamespace}`)).text();
    expect(html).toContain(`href="/${w.project.pathWithNamespace}/-/blob/main/main.txt"`);
    expect(textOf(html)).toContain("The README shown on the project page.");
  });

  it("the group page lists its subgroups and projects, and offers New project and New subgroup to its owner", async () => {
    const w = await world();
    const html = await (await w.browser.get(`/groups/${w.group.fullPath}`)).text();
    expect(html).toContain(`href="/groups/${w.sub.fullPath}"`);
    expect(html).toContain(`href="/${w.project.pathWithNamespace}"`);
    expect(html).toContain(`href="/projects/new?namespace_id=${w.group.id}"`);
    expect(html).toContain(`href="/groups/new?parent_id=${w.group.id}"`);
  });

  it("a group, project or merge request the viewer may not see answers as missing (404), and a visitor is sent to sign in", async () => {
    const w = await world();
    const stranger = new Browser();
    const someone = await makeUser();
    await stranger.signIn(someone.username, TEST_PASSWORD, "/");
    for (const path of [`/groups/${w.group.fullPath}`, `/${w.project.pathWithNamespace}/-/merge_requests/${w.mr.iid}`, `/${w.project.pathWithNamespace}/-/tree/main`]) {
      expect((await stranger.get(path)).status, path).toBe(404);
      const visitor = await call(path, { redirect: "manual" });
      expect(visitor.status, path).toBe(302);
      expect(visitor.headers.get("location"), path).toContain("/users/sign_in");
    }
  });

  it("a user's profile page shows name and username, never the e-mail address; an unknown name is 404", async () => {
    const w = await world();
    const res = await call(`/${w.owner.username}`);
    expect(res.status).toBe(200);
    const text = textOf(await res.text());
    expect(text).toContain(`@${w.owner.username}`);
    expect(text).not.toContain(w.owner.email);
    expect((await call(`/${unique("nobody")}`)).status).toBe(404);
  });

  it("the blob page shows a file as text; the commit page shows its message and parents", async () => {
    const w = await world();
    const blob = await w.browser.get(`/${w.project.pathWithNamespace}/-/blob/main/README.md`);
    expect(blob.status).toBe(200);
    expect(textOf(await blob.text())).toContain("# Linked");
    const [commit] = (await (await call(`/api/v4/projects/${w.project.id}/repository/commits`, { token: w.token })).json()) as { id: string }[];
    const page = textOf(await (await w.browser.get(`/${w.project.pathWithNamespace}/-/commit/${commit!.id}`)).text());
    expect(page).toContain("Initial commit");
    expect(page).toContain("None (the first commit)");
    expect((await w.browser.get(`/${w.project.pathWithNamespace}/-/commit/${"0".repeat(40)}`)).status).toBe(404);
  });
});

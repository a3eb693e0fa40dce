import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { addMember, createGroup } from "../../src/db/namespaces";
import { findProject } from "../../src/db/projects";
import { Browser, signedInUser, textOf } from "../helpers/browser";
import { call, makePat, makeUser, TEST_PASSWORD, unique } from "../helpers/fixtures";

/** DESIGN "Pages people find their way through": what a page lists it can create or edit, as GitLab's pages. */

describe("GitLab's /projects/new: a project from a page, through the service POST /api/v4/projects uses", () => {
  it("creates a project in the person's namespace with a README, audited, and lands on its page", async () => {
    const { user, browser } = await signedInUser();
    await browser.get("/projects/new");
    const name = `Page project ${unique("p")}`;
    const res = await browser.post("/projects", { name, path: "", description: "From the form", visibility: "internal", initialize_with_readme: "1" });
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    const project = (await findProject(getDb(env.DB), location.slice(1)))!;
    expect(project).toMatchObject({ name, description: "From the form", visibility: "internal", namespaceKind: "user", namespaceId: user.id });
    const page = await browser.get(location);
    expect(textOf(await page.text())).toContain(`Project '${name}' was successfully created.`);
    const token = await makePat(user.id, ["read_api"]);
    expect((await call(`/api/v4/projects/${project.id}/repository/files/README.md?ref=main`, { token })).status).toBe(200);
    const audit = await env.DB.prepare("SELECT action FROM audit_events WHERE entity_type = 'project' AND entity_id = ?").bind(String(project.id)).all<{ action: string }>();
    expect(audit.results.map((r) => r.action)).toEqual(["project_created"]);
  });

  it("a taken path is shown on the form (422), and a group the person cannot create in is refused", async () => {
    const { user, browser } = await signedInUser();
    await browser.get("/projects/new");
    const path = unique("dup");
    expect((await browser.post("/projects", { name: path, path, visibility: "private" })).status).toBe(303);
    await browser.get("/projects/new");
    const again = await browser.post("/projects", { name: path, path, visibility: "private" });
    expect(again.status).toBe(422);
    expect(textOf(await again.text())).toContain("has already been taken");
    const owner = await makeUser();
    const g = await createGroup(getDb(env.DB), { name: "Other", path: unique("og"), parent: null, visibility: "internal", description: "", ownerId: owner.id });
    await addMember(getDb(env.DB), "group", g.id, user.id, 20, null);
    const refused = await browser.post("/projects", { name: unique("x"), namespace_id: String(g.id), visibility: "private" });
    expect(refused.status).toBe(422);
    expect(textOf(await refused.text())).toContain("You cannot create projects in this group");
  });

  it("refuses a form post without the CSRF token or from another origin (403)", async () => {
    const { browser } = await signedInUser();
    await browser.get("/projects/new");
    expect((await browser.post("/projects", { name: unique("x") }, { csrf: false })).status).toBe(403);
    expect((await browser.post("/projects", { name: unique("x") }, { origin: "https://evil.example" })).status).toBe(403);
  });

  it("a visitor is sent to sign in", async () => {
    const res = await call("/projects/new", { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toContain("/users/sign_in");
  });
});

describe("GitLab's /groups/new: groups and subgroups from a page", () => {
  it("creates a top-level group and then a subgroup of it, each landing on its group page", async () => {
    const { browser } = await signedInUser();
    await browser.get("/groups/new");
    const path = unique("pg");
    const res = await browser.post("/groups", { name: `Group ${path}`, path, visibility: "private" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/groups/${path}`);
    const parent = (await env.DB.prepare("SELECT id FROM groups WHERE full_path = ?").bind(path).first<{ id: number }>())!;
    await browser.get(`/groups/new?parent_id=${parent.id}`);
    expect(browser.lastHtml).toContain(`<option value="${parent.id}" selected="">`);
    const sub = await browser.post("/groups", { name: "Child", path: "child", parent_id: String(parent.id), visibility: "private" });
    expect(sub.status).toBe(303);
    expect(sub.headers.get("location")).toBe(`/groups/${path}/child`);
    const page = await (await browser.get(`/groups/${path}`)).text();
    expect(page).toContain(`href="/groups/${path}/child"`);
  });

  it("the dashboards offer New project and New group", async () => {
    const { browser } = await signedInUser();
    expect(await (await browser.get("/dashboard/projects")).text()).toContain('href="/projects/new"');
    expect(await (await browser.get("/dashboard/groups")).text()).toContain('href="/groups/new"');
  });
});

describe("GitLab's /<namespace>/<project>/edit: name, description and visibility", () => {
  async function projectOf(browser: Browser) {
    await browser.get("/projects/new");
    const path = unique("ep");
    const res = await browser.post("/projects", { name: `Edit ${path}`, path, visibility: "private" });
    return (await findProject(getDb(env.DB), res.headers.get("location")!.slice(1)))!;
  }

  it("the owner changes description and visibility, through the audited service", async () => {
    const { browser } = await signedInUser();
    const project = await projectOf(browser);
    await browser.get(`/${project.pathWithNamespace}/edit`);
    const res = await browser.post(`/${project.pathWithNamespace}/edit`, { name: "Renamed", description: "New words", visibility: "public" });
    expect(res.status).toBe(303);
    expect(await findProject(getDb(env.DB), String(project.id))).toMatchObject({ name: "Renamed", description: "New words", visibility: "public" });
    const audit = await env.DB.prepare("SELECT action, details FROM audit_events WHERE entity_type = 'project' AND entity_id = ? ORDER BY id").bind(String(project.id)).all<{ action: string; details: string }>();
    expect(audit.results.map((r) => r.action)).toEqual(["project_created", "project_updated"]);
    expect(audit.results[1]!.details).toContain("visibility");
  });

  it("a developer may not open the settings (403); a maintainer may not rename (422)", async () => {
    const { browser } = await signedInUser();
    const project = await projectOf(browser);
    const dev = await makeUser();
    const maint = await makeUser();
    await addMember(getDb(env.DB), "project", project.id, dev.id, 30, null);
    await addMember(getDb(env.DB), "project", project.id, maint.id, 40, null);
    const devBrowser = new Browser();
    await devBrowser.signIn(dev.username, TEST_PASSWORD, "/");
    expect((await devBrowser.get(`/${project.pathWithNamespace}/edit`)).status).toBe(403);
    const maintBrowser = new Browser();
    await maintBrowser.signIn(maint.username, TEST_PASSWORD, "/");
    await maintBrowser.get(`/${project.pathWithNamespace}/edit`);
    const res = await maintBrowser.post(`/${project.pathWithNamespace}/edit`, { name: "Not mine to rename", description: "", visibility: "private" });
    expect(res.status).toBe(422);
    expect(textOf(await res.text())).toContain("Only owners rename a project.");
  });
});

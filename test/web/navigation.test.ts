import { describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { Browser, signedInUser, textOf } from "../helpers/browser";
import { TEST_PASSWORD, call, makeUser } from "../helpers/fixtures";
import { addMemberTo, makeGroup, makeProject, makeRunner } from "../helpers/resources";

/** DESIGN.md "Pages people find their way through": the header's links, the dashboard, a project's page. */
const navLinks = (html: string) => [...(/<nav aria-label="Main">([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? "").matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]);

describe("header navigation", () => {
  it("a visitor is offered Explore and Sign in; a signed-in person projects, groups, applications, tokens and a sign-out POST carrying the CSRF token", async () => {
    const visitor = await (await call("/")).text();
    expect(navLinks(visitor)).toEqual(["/explore/projects", "/users/sign_in"]);
    expect(visitor).not.toContain('action="/users/sign_out"');
    const { user, browser } = await signedInUser();
    const html = await (await browser.get("/")).text();
    expect(navLinks(html)).toEqual(["/dashboard/projects", "/dashboard/groups", "/profile/applications", "/profile/personal_access_tokens"]);
    expect(html).toMatch(/<form method="post" action="\/users\/sign_out"><input type="hidden" name="authenticity_token" value="[^"]+"/);
    expect(html).toContain(`aria-label="Sign out ${user.username}"`);
  });

  it("an administrator also gets Admin", async () => {
    const admin = await makeUser({ isAdmin: true });
    const b = new Browser();
    await b.signIn(admin.username, TEST_PASSWORD);
    expect(navLinks(await (await b.get("/")).text())).toContain("/admin");
  });
});

describe("/dashboard/projects and /dashboard/groups", () => {
  it("list the person's own projects, their memberships' and their groups', and not others' public ones", async () => {
    const { user, browser } = await signedInUser();
    const other = await makeUser();
    const own = await makeProject(user.id);
    const group = await makeGroup(other.id);
    await addMemberTo("group", group.id, user.id, AccessLevel.DEVELOPER);
    const inGroup = await makeProject(other.id, { groupId: group.id, groupPath: group.fullPath });
    const strangers = await makeProject(other.id, { visibility: "public" });
    const res = await browser.get("/dashboard/projects");
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Frame-Options")).toBe("DENY");
    const html = await res.text();
    expect(html).toContain(`href="/${own.pathWithNamespace}"`);
    expect(html).toContain(`href="/${inGroup.pathWithNamespace}"`);
    expect(html).not.toContain(`href="/${strangers.pathWithNamespace}"`);
    expect(textOf(await (await browser.get("/dashboard/groups")).text())).toContain(group.fullPath);
  });

  it("send a visitor to sign in first", async () => {
    const res = await call("/dashboard/projects", { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/users/sign_in?redirect_to=%2Fdashboard%2Fprojects");
  });
});

describe("/explore/projects", () => {
  it("shows a visitor public projects only", async () => {
    const owner = await makeUser();
    const pub = await makeProject(owner.id, { visibility: "public" });
    const internal = await makeProject(owner.id, { visibility: "internal" });
    const html = await (await call("/explore/projects")).text();
    expect(html).toContain(`href="/${pub.pathWithNamespace}"`);
    expect(html).not.toContain(`href="/${internal.pathWithNamespace}"`);
  });
});

describe("/<namespace>/<project>", () => {
  it("links a maintainer to the registry and the deploy-token settings, and shows the clone URL", async () => {
    const { user, browser } = await signedInUser();
    const project = await makeProject(user.id);
    const res = await browser.get(`/${project.pathWithNamespace}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
    const html = await res.text();
    expect(html).toContain(`href="/${project.pathWithNamespace}/container_registry"`);
    expect(html).toContain(`href="/${project.pathWithNamespace}/-/settings/repository"`);
    expect(textOf(html)).toContain(`http://localhost/${project.pathWithNamespace}.git`);
  });

  it("shows a maintainer the runners the project can use, as GET /projects/:id/runners lists them (its own, not another project's)", async () => {
    const { user, browser } = await signedInUser();
    const project = await makeProject(user.id);
    const other = await makeProject(user.id);
    const mine = `page-runner-${crypto.randomUUID().slice(0, 8)}`;
    const theirs = `other-runner-${crypto.randomUUID().slice(0, 8)}`;
    await makeRunner({ runnerType: "project_type", projectId: project.id, description: mine, contactedAt: Date.now() });
    await makeRunner({ runnerType: "project_type", projectId: other.id, description: theirs });
    const html = await (await browser.get(`/${project.pathWithNamespace}`)).text();
    expect(html).toContain('href="#runners"');
    const section = textOf(/<h2 id="runners">[\s\S]*$/.exec(html)![0]);
    expect(section).toContain(mine);
    expect(section).toContain("online");
    expect(section).not.toContain(theirs);
  });

  it("a guest sees the page without the registry or settings links", async () => {
    const owner = await makeUser();
    const project = await makeProject(owner.id);
    const { user, browser } = await signedInUser();
    await addMemberTo("project", project.id, user.id, AccessLevel.GUEST);
    const html = await (await browser.get(`/${project.pathWithNamespace}`)).text();
    expect(html).not.toContain("/container_registry");
    expect(html).not.toContain("/-/settings/repository");
    expect(html).not.toContain('id="runners"');
  });

  it("a private project answers a stranger exactly as a missing one (404, the same page); a visitor is sent to sign in", async () => {
    const owner = await makeUser();
    const project = await makeProject(owner.id);
    const { browser } = await signedInUser();
    const hidden = await browser.get(`/${project.pathWithNamespace}`);
    const missing = await browser.get(`/${project.pathWithNamespace}-none`);
    expect([hidden.status, missing.status]).toEqual([404, 404]);
    expect(await hidden.text()).toBe(await missing.text());
    const anonymous = await call(`/${project.pathWithNamespace}`, { redirect: "manual" });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toBe(`/users/sign_in?redirect_to=${encodeURIComponent(`/${project.pathWithNamespace}`)}`);
  });

  it("a public project is shown to a visitor; git's endpoints below it still answer as git", async () => {
    const owner = await makeUser();
    const project = await makeProject(owner.id, { visibility: "public" });
    const page = await call(`/${project.pathWithNamespace}`);
    expect(page.status).toBe(200);
    expect(textOf(await page.text())).toContain(project.name);
    const refs = await call(`/${project.pathWithNamespace}.git/info/refs?service=git-receive-pack`);
    // git's refusal (a Basic challenge), not a page.
    expect(refs.status).toBe(401);
    expect(refs.headers.get("www-authenticate")).toMatch(/^Basic/);
    expect(refs.headers.get("content-security-policy")).toBeNull();
  });
});

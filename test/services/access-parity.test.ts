import { describe, expect, it } from "vitest";
import { decideAbility, type AbilityActor, type AbilityDecision, type AbilityName } from "../../src/domain/abilities";
import { AccessLevel, type Visibility } from "../../src/domain/access";
import { call, json, makePat, makeUser, TEST_PASSWORD } from "../helpers/fixtures";
import { Browser } from "../helpers/browser";
import { addMemberTo, makeGroup, makeProject } from "../helpers/resources";
import { basicAuth, claimsOf, tokenResponse } from "../registry/helpers";

/**
 * docs/architecture.md, "Access checks": the abilities table is the one answer to "may this caller
 * do X to this project?". The same caller asking about the same project through REST, GraphQL, the
 * pages, git and /jwt/auth gets the table's answer (allowed, not found, forbidden; anonymous
 * refusals are a sign-in request), for every ability each surface exposes, every caller kind and
 * every visibility. Probes change nothing (a deletion names a repository that does not exist, an
 * upload an invalid package name, a member an empty body), except on the throwaway project that
 * exists to be renamed and deleted (remove_project, rename_project).
 */

type Answer = AbilityDecision | "refused";
type Probe = { surface: string; ability: AbilityName; answer: Answer };

const VISIBILITIES: Visibility[] = ["private", "internal", "public"];
const LEVELS = { none: 0, guest: AccessLevel.GUEST, reporter: AccessLevel.REPORTER, developer: AccessLevel.DEVELOPER, maintainer: AccessLevel.MAINTAINER, owner: AccessLevel.OWNER };

interface Person {
  id: number;
  name: string;
  level: number;
  isAdmin: boolean;
  pat: string;
  username: string;
  browser: Browser;
}

async function person(name: string, isAdmin = false): Promise<Person> {
  const user = await makeUser({ isAdmin });
  const browser = new Browser();
  expect((await browser.signIn(user.username, TEST_PASSWORD, "/")).status).toBe(303);
  return { id: user.id, name, level: 0, isAdmin, pat: await makePat(user.id, ["api"]), username: user.username, browser };
}

/** A REST answer: 403 forbidden, GitLab's `404 Project Not Found` (`404 Group Not Found`) not found, success (or another thing missing) allowed. */
async function restAnswer(res: Response): Promise<Answer> {
  if (res.status === 401) return "refused";
  if (res.status === 403) return "forbidden";
  const body = res.status === 404 ? ((await res.json()) as { message?: string }) : null;
  if (body?.message === "404 Project Not Found" || body?.message === "404 Group Not Found") return "not_found";
  expect(res.status, `unexpected REST answer ${res.status} ${JSON.stringify(body)}`).toBeLessThan(405);
  return "allowed";
}

/** A page's answer: a visitor sent to sign in is refused; 404, 403 and success as REST. */
async function pageAnswer(res: Response): Promise<Answer> {
  if (res.status === 302 && (res.headers.get("Location") ?? "").startsWith("/users/sign_in")) return "refused";
  if (res.status === 404) return "not_found";
  if (res.status === 403) return "forbidden";
  expect(res.status).toBe(200);
  return "allowed";
}

/** git's answer: 401 asks for credentials (refused), 403, 404, or the origin's advertisement. */
function gitAnswer(res: Response): Answer {
  if (res.status === 401) return "refused";
  if (res.status === 403) return "forbidden";
  if (res.status === 404) return "not_found";
  expect(res.status).toBe(200);
  return "allowed";
}

async function restProbes(pat: string, projectId: number): Promise<Probe[]> {
  const get = (path: string) => call(`/api/v4/projects/${projectId}${path}`, { token: pat });
  return [
    { surface: "REST", ability: "read_project", answer: await restAnswer(await get("")) },
    { surface: "REST", ability: "read_code", answer: await restAnswer(await get("/repository/commits?per_page=1")) },
    { surface: "REST", ability: "read_container_image", answer: await restAnswer(await get("/registry/repositories")) },
    { surface: "REST", ability: "read_package", answer: await restAnswer(await get("/packages")) },
    { surface: "REST", ability: "admin_project", answer: await restAnswer(await get("/deploy_tokens")) },
    {
      surface: "REST",
      ability: "destroy_container_image",
      answer: await restAnswer(await call(`/api/v4/projects/${projectId}/registry/repositories/999999999`, { method: "DELETE", token: pat })),
    },
    // The package name is refused (400) only after the project was checked for create_package.
    {
      surface: "REST",
      ability: "create_package",
      answer: await restAnswer(await call(`/api/v4/projects/${projectId}/packages/generic/!parity/1.0.0/f.txt`, { method: "PUT", body: "x", token: pat })),
    },
  ];
}

/** The package registry for a deploy token: its list (read_package) and, with a write scope, an upload refused by validation (create_package). */
async function packageProbes(auth: string, projectId: number, writes: boolean): Promise<Probe[]> {
  const headers = { Authorization: auth };
  const probes: Probe[] = [
    { surface: "REST packages", ability: "read_package", answer: await restAnswer(await call(`/api/v4/projects/${projectId}/packages/generic/parity/1.0.0/f.txt`, { headers })) },
  ];
  if (!writes) return probes;
  const upload = await call(`/api/v4/projects/${projectId}/packages/generic/!parity/1.0.0/f.txt`, { method: "PUT", body: "x", headers });
  return [...probes, { surface: "REST packages", ability: "create_package", answer: await restAnswer(upload) }];
}

/** rename_project and remove_project change the project: they are asked of a throwaway one. */
async function throwawayProbes(pat: string, projectId: number): Promise<Probe[]> {
  const rename = await call(`/api/v4/projects/${projectId}`, { ...json({ name: `renamed ${crypto.randomUUID().slice(0, 8)}` }), method: "PUT", token: pat });
  const remove = await call(`/api/v4/projects/${projectId}`, { method: "DELETE", token: pat });
  return [
    { surface: "REST", ability: "rename_project", answer: await restAnswer(rename) },
    { surface: "REST", ability: "remove_project", answer: await restAnswer(remove) },
  ];
}

const QUERY = `query($p: ID!) { project(fullPath: $p) { id pipelines { nodes { id } } containerRepositories { nodes { id } } packages { nodes { id } } deployTokens { nodes { id } } } }`;

/** GraphQL answers null for what the caller may not see or do: only allowed or not is told apart. */
async function graphqlProbes(pat: string | null, path: string): Promise<Probe[]> {
  const res = await call("/api/graphql", { ...json({ query: QUERY, variables: { p: path } }), ...(pat ? { token: pat } : {}) });
  expect(res.status).toBe(200);
  const { data } = (await res.json()) as { data: { project: Record<string, unknown> | null } };
  const p = data.project;
  const has = (field: string): Answer => (p && p[field] !== null ? "allowed" : "not_found");
  return [
    { surface: "GraphQL", ability: "read_project", answer: p ? "allowed" : "not_found" },
    { surface: "GraphQL", ability: "read_code", answer: has("pipelines") },
    { surface: "GraphQL", ability: "read_container_image", answer: has("containerRepositories") },
    { surface: "GraphQL", ability: "read_package", answer: has("packages") },
    { surface: "GraphQL", ability: "admin_project", answer: has("deployTokens") },
  ];
}

/**
 * The overview is the page everyone reaches; the sections below it are signed-in pages (their door,
 * guardProjectPage in src/web/project-page.ts, sends a visitor to sign in before any ability is asked).
 */
async function pageProbes(browser: Browser, path: string, signedIn: boolean): Promise<Probe[]> {
  const overview = await browser.get(`/${path}`);
  const seen = await pageAnswer(overview);
  const html = seen === "allowed" ? await overview.text() : "";
  // The overview shows the clone URL to whoever may read the code (shown or not: only allowed is told apart).
  const probes: Probe[] = [
    { surface: "page", ability: "read_project", answer: seen },
    { surface: "page overview", ability: "read_code", answer: html.includes('id="clone-heading"') ? "allowed" : "not_found" },
  ];
  if (!signedIn) return probes;
  const edit = await browser.get(`/${path}/edit`);
  const edits = await pageAnswer(edit);
  // The settings form lets whoever may rename edit the name; others see it read-only with a hint.
  const renames = edits === "allowed" && !(await edit.text()).includes('id="project_name_hint"');
  return [
    ...probes,
    { surface: "page", ability: "read_container_image", answer: await pageAnswer(await browser.get(`/${path}/container_registry`)) },
    { surface: "page", ability: "admin_project", answer: edits },
    { surface: "page form", ability: "rename_project", answer: renames ? "allowed" : "not_found" },
  ];
}

/** A listing's visibility filter is a query (src/db), not an ability check, but it lists exactly what read_project allows. */
async function listingProbe(pat: string | null, project: { id: number; path: string }): Promise<Probe> {
  const res = await call(`/api/v4/projects?search=${encodeURIComponent(project.path)}&per_page=100`, pat ? { token: pat } : {});
  expect(res.status).toBe(200);
  const listed = ((await res.json()) as { id: number }[]).some((p) => p.id === project.id);
  return { surface: "REST listing", ability: "read_project", answer: listed ? "allowed" : "not_found" };
}

async function gitProbes(auth: string | null, path: string): Promise<Probe[]> {
  const refs = (service: string) => call(`/${path}.git/info/refs?service=${service}`, auth ? { headers: { Authorization: auth } } : {});
  return [
    { surface: "git", ability: "read_code", answer: gitAnswer(await refs("git-upload-pack")) },
    { surface: "git", ability: "push_code", answer: gitAnswer(await refs("git-receive-pack")) },
  ];
}

/** /jwt/auth grants what it may and drops the rest: granted is allowed, anything else is not (no distinction). */
async function registryProbes(auth: string | null, path: string): Promise<Probe[]> {
  const name = path.toLowerCase();
  const res = await tokenResponse([`repository:${name}:pull,push,delete`], auth ?? undefined);
  expect(res.status).toBe(200);
  const actions = claimsOf(((await res.json()) as { token: string }).token).access.find((a) => a.name === name)?.actions ?? [];
  const granted = (a: string): Answer => (actions.includes(a) ? "allowed" : "not_found");
  return [
    { surface: "/jwt/auth", ability: "read_container_image", answer: granted("pull") },
    { surface: "/jwt/auth", ability: "create_container_image", answer: granted("push") },
    { surface: "/jwt/auth", ability: "destroy_container_image", answer: granted("delete") },
  ];
}

/** What a surface must answer, from the table: surfaces that cannot tell refusals apart only say allowed or not. */
function expected(probe: Probe, actor: AbilityActor, visibility: Visibility, level: number): Answer {
  const decision = decideAbility(probe.ability, actor, { visibility, level });
  if (decision === "allowed") return "allowed";
  if (["GraphQL", "/jwt/auth", "page overview", "page form", "REST listing"].includes(probe.surface)) return "not_found";
  // Anonymous callers are asked to sign in (REST needs a token here, git asks for credentials, pages redirect).
  if (actor.kind === "anonymous") return "refused";
  return decision;
}

const mismatches = (probes: Probe[], actor: AbilityActor, visibility: Visibility, level: number, who: string) =>
  probes
    .map((p) => ({ ...p, who, visibility, expected: expected(p, actor, visibility, level) }))
    .filter((p) => p.answer !== p.expected);

/** Group abilities at REST (an empty member body is refused, 400, only after admin_group was checked). */
async function groupRestProbes(pat: string, groupId: number): Promise<Probe[]> {
  const get = (path: string) => call(`/api/v4/groups/${groupId}${path}`, { token: pat });
  return [
    { surface: "REST", ability: "read_group", answer: await restAnswer(await get("/members")) },
    { surface: "REST", ability: "read_group_container_images", answer: await restAnswer(await get("/registry/repositories")) },
    { surface: "REST", ability: "maintain_group", answer: await restAnswer(await get("/runners")) },
    { surface: "REST", ability: "admin_group", answer: await restAnswer(await call(`/api/v4/groups/${groupId}/members`, { ...json({}), token: pat })) },
  ];
}

const GROUP_QUERY = `query($g: ID!) { group(fullPath: $g) { id runners { nodes { id } } deployTokens { nodes { id } } } }`;

async function groupGraphqlProbes(pat: string | null, fullPath: string): Promise<Probe[]> {
  const res = await call("/api/graphql", { ...json({ query: GROUP_QUERY, variables: { g: fullPath } }), ...(pat ? { token: pat } : {}) });
  expect(res.status).toBe(200);
  const g = ((await res.json()) as { data: { group: Record<string, unknown> | null } }).data.group;
  return [
    { surface: "GraphQL", ability: "read_group", answer: g ? "allowed" : "not_found" },
    { surface: "GraphQL", ability: "maintain_group", answer: g && g.runners !== null ? "allowed" : "not_found" },
    { surface: "GraphQL", ability: "maintain_group", answer: g && g.deployTokens !== null ? "allowed" : "not_found" },
  ];
}

/** The group page: read_group to enter; it offers a new project (create_projects) and a subgroup (admin_group). */
async function groupPageProbes(browser: Browser, group: { id: number; fullPath: string }): Promise<Probe[]> {
  const res = await browser.get(`/groups/${group.fullPath}`);
  const seen = await pageAnswer(res);
  const html = seen === "allowed" ? await res.text() : "";
  const offers = (href: string): Answer => (html.includes(href) ? "allowed" : "not_found");
  return [
    { surface: "page", ability: "read_group", answer: seen },
    { surface: "page overview", ability: "create_projects", answer: offers(`/projects/new?namespace_id=${group.id}`) },
    { surface: "page overview", ability: "admin_group", answer: offers(`/groups/new?parent_id=${group.id}`) },
  ];
}

async function projectOf(visibility: Visibility) {
  const owner = await makeUser();
  const group = await makeGroup(owner.id, { visibility });
  return makeProject(owner.id, { groupId: group.id, groupPath: group.fullPath, visibility });
}

describe("access parity: REST, GraphQL, the pages, git and /jwt/auth give the abilities table's answer", () => {
  it("every member level, a non-member and an administrator, on a private, an internal and a public project", { timeout: 240_000 }, async () => {
    const people: Person[] = [];
    for (const [name, level] of Object.entries(LEVELS)) people.push({ ...(await person(name)), level });
    people.push(await person("administrator", true));
    const found: unknown[] = [];
    for (const visibility of VISIBILITIES) {
      const project = await projectOf(visibility);
      for (const p of people) if (p.level > 0) await addMemberTo("project", project.id, p.id, p.level);
      for (const p of people) {
        // Each caller gets its own throwaway project (a rename or a removal must not answer for the next caller).
        const throwaway = await projectOf(visibility);
        if (p.level > 0) await addMemberTo("project", throwaway.id, p.id, p.level);
        const actorFor = (scopes: readonly string[] | null): AbilityActor => ({ kind: "user", isAdmin: p.isAdmin, scopes });
        const git = basicAuth(p.username, p.pat);
        found.push(
          ...mismatches(
            [
              ...(await restProbes(p.pat, project.id)),
              ...(await throwawayProbes(p.pat, throwaway.id)),
              await listingProbe(p.pat, project),
              ...(await graphqlProbes(p.pat, project.pathWithNamespace)),
              ...(await pageProbes(p.browser, project.pathWithNamespace, true)),
            ],
            actorFor(null),
            visibility,
            p.isAdmin ? AccessLevel.OWNER : p.level,
            p.name,
          ),
          ...mismatches(
            [...(await gitProbes(git, project.pathWithNamespace)), ...(await registryProbes(git, project.pathWithNamespace))],
            actorFor(["api"]),
            visibility,
            p.isAdmin ? AccessLevel.OWNER : p.level,
            p.name,
          ),
        );
      }
    }
    expect(found).toEqual([]);
  });

  it("every member level, a non-member and an administrator, on a private, an internal and a public group", { timeout: 120_000 }, async () => {
    const people: Person[] = [];
    for (const [name, level] of Object.entries(LEVELS)) people.push({ ...(await person(name)), level });
    people.push(await person("administrator", true));
    const found: unknown[] = [];
    for (const visibility of VISIBILITIES) {
      const group = await makeGroup((await makeUser()).id, { visibility });
      for (const p of people) {
        if (p.level > 0) await addMemberTo("group", group.id, p.id, p.level);
        const probes = [...(await groupRestProbes(p.pat, group.id)), ...(await groupGraphqlProbes(p.pat, group.fullPath)), ...(await groupPageProbes(p.browser, group))];
        found.push(...mismatches(probes, { kind: "user", isAdmin: p.isAdmin, scopes: null }, visibility, p.isAdmin ? AccessLevel.OWNER : p.level, p.name));
      }
      const anonymous = [...(await groupGraphqlProbes(null, group.fullPath)), ...(await groupPageProbes(new Browser(), group))];
      found.push(...mismatches(anonymous, { kind: "anonymous" }, visibility, 0, "anonymous"));
    }
    expect(found).toEqual([]);
  });

  it("an anonymous visitor on a private, an internal and a public project", { timeout: 60_000 }, async () => {
    const found: unknown[] = [];
    for (const visibility of VISIBILITIES) {
      const project = await projectOf(visibility);
      const probes = [
        await listingProbe(null, project),
        ...(await graphqlProbes(null, project.pathWithNamespace)),
        ...(await pageProbes(new Browser(), project.pathWithNamespace, false)),
        ...(await gitProbes(null, project.pathWithNamespace)),
        ...(await registryProbes(null, project.pathWithNamespace)),
      ];
      found.push(...mismatches(probes, { kind: "anonymous" }, visibility, 0, "anonymous"));
    }
    expect(found).toEqual([]);
  });

  it("deploy tokens of the project and of another project, by scope, at git, /jwt/auth and the package registry", { timeout: 60_000 }, async () => {
    const found: unknown[] = [];
    for (const visibility of VISIBILITIES) {
      const project = await projectOf(visibility);
      const other = await projectOf("private");
      const owner = await makeUser({ isAdmin: true });
      const ownerPat = await makePat(owner.id, ["api"]);
      for (const [covers, target] of [[true, project], [false, other]] as const) {
        for (const scopes of [["read_repository", "read_registry"], ["read_repository", "write_registry"], ["read_package_registry"], ["write_package_registry"]]) {
          const res = await call(`/api/v4/projects/${target.id}/deploy_tokens`, { ...json({ name: "parity", scopes }), token: ownerPat });
          expect(res.status).toBe(201);
          const token = (await res.json()) as { token: string; username: string };
          const auth = basicAuth(token.username, token.token);
          // A token without a git or package scope is turned away by that family's door before any project is asked.
          const probes = scopes.includes("read_repository")
            ? [...(await gitProbes(auth, project.pathWithNamespace)), ...(await registryProbes(auth, project.pathWithNamespace))]
            : await packageProbes(auth, project.id, scopes.includes("write_package_registry"));
          found.push(...mismatches(probes, { kind: "deploy_token", scopes, covers }, visibility, 0, `deploy token ${scopes.join("+")}${covers ? "" : " of another project"}`));
        }
      }
    }
    expect(found).toEqual([]);
  });
});

import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { DEPLOY_TOKEN_SCOPES } from "../../src/domain/deploy-token-input";
import { Browser, ORIGIN } from "../helpers/browser";
import { TEST_PASSWORD, call, json, makePat, makeUser, makeUserWithToken } from "../helpers/fixtures";
import { makeGroup, makeProject } from "../helpers/resources";
import { basicAuth, registryToken } from "../registry/helpers";
import { appRoutes, familyOf, fillTemplate, queryString, requestBody, segment, shapeDefect, type Family, type RouteTemplate } from "./sweep-model";

/**
 * DESIGN, Hardening ("no input yields a 5xx ... a property-based sweep in the test suite proves it"):
 * generated hostile requests against every route of every family (REST, OAuth, GraphQL, Plugin
 * RPC, registry, git, pages), read from the app's own route table, with every credential kind. Each answer must be below 500 and in its
 * family's error shape. Bounded: RUNS_PER_ROUTE per route plus RUNS_PER_FAMILY free paths per
 * family (a few thousand requests, well under a minute in workerd).
 */
const RUNS_PER_ROUTE = 14;
const RUNS_PER_FAMILY = 60;
/** A family's routes take a minute or more on a loaded machine (REST: 125 routes × 14 requests). */
const FAMILY_TIMEOUT_MS = 300_000;

const admin = await makeUserWithToken({ isAdmin: true });
const member = await makeUser();
const memberToken = await makePat(member.id, ["read_api"]);
const group = await makeGroup(admin.user.id, { visibility: "public" });
const project = await makeProject(admin.user.id, { groupId: group.id, groupPath: group.fullPath, visibility: "public" });
const registryName = project.pathWithNamespace.toLowerCase();
const known = [String(project.id), encodeURIComponent(project.pathWithNamespace), project.pathWithNamespace, registryName, String(admin.user.id), "1", "2"];

/*
 * Every credential kind (DESIGN, "Credentials: one layer, one front door"), so that generated
 * requests get past each family's door to the routes behind it: a deploy token of the swept project
 * (every deploy-token scope) by `DEPLOY-TOKEN` and by Basic, a registry JWT from /jwt/auth that may
 * pull, push and delete the project's repository, and a signed-in session (its cookie, with the
 * same-origin Origin a browser sends).
 */
const deployToken = (await (
  await call(`/api/v4/projects/${project.id}/deploy_tokens`, { ...json({ name: "sweep", scopes: [...DEPLOY_TOKEN_SCOPES] }), token: admin.token })
).json()) as { token: string; username: string };
const registryJwt = await registryToken([`repository:${registryName}:pull,push,delete`], basicAuth(admin.user.username, await makePat(admin.user.id, ["api"])));
const browser = new Browser();
if ((await browser.signIn(admin.user.username, TEST_PASSWORD, "/")).status !== 303) throw new Error("sweep: sign-in failed");
const session = browser.cookieHeader();

const authHeaders = fc.constantFrom<Record<string, string>>(
  {},
  { Authorization: `Bearer ${admin.token}` },
  { "PRIVATE-TOKEN": memberToken },
  { "DEPLOY-TOKEN": deployToken.token },
  { Authorization: basicAuth(deployToken.username, deployToken.token) },
  { Authorization: `Bearer ${registryJwt}` },
  { Cookie: session, Origin: ORIGIN },
  { Cookie: session },
  { Authorization: "Bearer glpat-not-a-real-token" },
  { Authorization: "Bearer %FF%FE\"<>" },
  { Authorization: `Basic ${btoa(`oauth2:${admin.token}`)}` },
  { Authorization: "Basic !!!not-base64" },
  { Authorization: `Basic ${btoa("root:wrong")}` },
  { Origin: "https://evil.example", Cookie: "_edge_auth_session=forged" },
);

const statuses = new Map<number, number>();
const byFamily = new Map<Family, number>();
const byCredential = new Map<string, number>();
/** A label for the credential a request carried, for the summary line. */
const credentialOf = (h: Record<string, string>) =>
  h["DEPLOY-TOKEN"] ? "deploy-token" : h.Authorization ? h.Authorization.split(" ")[0].toLowerCase() : h.Cookie ? "cookie" : h["PRIVATE-TOKEN"] ? "private-token" : "none";
let sent = 0;

async function send(method: string, path: string, headers: Record<string, string>, body: { contentType?: string; body?: BodyInit }) {
  const h = new Headers(headers);
  const withBody = method !== "GET" && method !== "HEAD" && body.body !== undefined;
  if (withBody && body.contentType) h.set("Content-Type", body.contentType);
  let res: Response;
  try {
    res = await call(path, { method, headers: h, body: withBody ? body.body : undefined });
  } catch (e) {
    throw new Error(`${method} ${path}: the Worker threw ${e instanceof Error ? e.message : String(e)}`);
  }
  sent++;
  // The family that answers is the one of the path as the URL parser normalised it (`/api/v4/..` is `/api/`).
  const family = familyOf(new URL(`http://localhost${path}`).pathname);
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  byFamily.set(family, (byFamily.get(family) ?? 0) + 1);
  byCredential.set(credentialOf(headers), (byCredential.get(credentialOf(headers)) ?? 0) + 1);
  const defect = await shapeDefect(family, method, path, res);
  expect(defect, `${method} ${path} (${body.contentType ?? "no body"})`).toBeNull();
}

const routes = appRoutes();
const families = new Map<Family, RouteTemplate[]>();
for (const r of routes) families.set(r.family, [...(families.get(r.family) ?? []), r]);

describe("the sweep covers every family's routes", () => {
  it("reads REST routes from the app (new routes are swept automatically)", () => {
    for (const f of ["rest", "oauth", "graphql", "plugin", "registry", "git", "pages"] as const) expect(families.get(f)?.length, f).toBeGreaterThan(0);
    expect(families.get("rest")!.length).toBeGreaterThan(50);
  });
});

for (const [family, templates] of families) {
  describe(`hostile requests: ${family} (${templates.length} routes)`, () => {
    it("every route answers below 500 in the family's shape", async () => {
      for (const route of templates) {
        await fc.assert(
          fc.asyncProperty(fc.array(segment(known), { minLength: 3, maxLength: 3 }), queryString, authHeaders, requestBody, async (values, query, headers, body) => {
            await send(route.method, fillTemplate(route.path, values) + query, headers, body);
          }),
          { numRuns: RUNS_PER_ROUTE, endOnFailure: true },
        );
      }
    }, FAMILY_TIMEOUT_MS);
    it("free paths under the family's prefix and wrong methods answer below 500", async () => {
      const prefixes = [...new Set(templates.map((t) => t.path.split("/:")[0].replace(/\/\*$/, "")))];
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...prefixes),
          fc.array(segment(known), { maxLength: 3 }),
          fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"),
          queryString,
          authHeaders,
          requestBody,
          async (prefix, segs, method, query, headers, body) => {
            await send(method, `${prefix}/${segs.join("/")}`.replace(/\/+$/, "") + query, headers, body);
          },
        ),
        { numRuns: RUNS_PER_FAMILY, endOnFailure: true },
      );
    }, FAMILY_TIMEOUT_MS);
  });
}

afterAll(() => {
  const fivexx = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
  const seen = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(" ");
  console.log(`hostile-input sweep: ${sent} requests; by family ${JSON.stringify(Object.fromEntries(byFamily))}; by credential ${JSON.stringify(Object.fromEntries(byCredential))}; statuses ${seen}; 5xx: ${fivexx}`);
});

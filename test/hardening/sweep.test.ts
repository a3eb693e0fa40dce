import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { call, makePat, makeUser, makeUserWithToken } from "../helpers/fixtures";
import { makeProject } from "../helpers/resources";
import { appRoutes, familyOf, fillTemplate, queryString, requestBody, segment, shapeDefect, type Family, type RouteTemplate } from "./sweep-model";

/**
 * Issue 12 "A property-based sweep in the suite" (DESIGN, Hardening: no input yields a 5xx):
 * generated hostile requests against every route of every family (REST, OAuth, GraphQL, Plugin
 * RPC, git, pages), read from the app's own route table. Each answer must be below 500 and in its
 * family's error shape. Bounded: RUNS_PER_ROUTE per route plus RUNS_PER_FAMILY free paths per
 * family (a few thousand requests, well under a minute in workerd).
 */
const RUNS_PER_ROUTE = 14;
const RUNS_PER_FAMILY = 60;

const admin = await makeUserWithToken({ isAdmin: true });
const member = await makeUser();
const memberToken = await makePat(member.id, ["read_api"]);
const project = await makeProject(admin.user.id, { visibility: "public" });
const known = [String(project.id), encodeURIComponent(project.pathWithNamespace), String(admin.user.id), "1", "2"];

const authHeaders = fc.constantFrom<Record<string, string>>(
  {},
  { Authorization: `Bearer ${admin.token}` },
  { "PRIVATE-TOKEN": memberToken },
  { Authorization: "Bearer glpat-not-a-real-token" },
  { Authorization: "Bearer %FF%FE\"<>" },
  { Authorization: `Basic ${btoa(`oauth2:${admin.token}`)}` },
  { Authorization: "Basic !!!not-base64" },
  { Authorization: `Basic ${btoa("root:wrong")}` },
  { Origin: "https://evil.example", Cookie: "_edge_auth_session=forged" },
);

const statuses = new Map<number, number>();
const byFamily = new Map<Family, number>();
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
    });
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
    });
  });
}

afterAll(() => {
  const fivexx = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
  const seen = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(" ");
  console.log(`hostile-input sweep: ${sent} requests; by family ${JSON.stringify(Object.fromEntries(byFamily))}; statuses ${seen}; 5xx: ${fivexx}`);
});

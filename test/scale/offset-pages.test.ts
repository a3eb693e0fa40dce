import { beforeAll, describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { call, makeUserWithToken } from "../helpers/fixtures";
import { addMemberTo, makeGroup, makeProject } from "../helpers/resources";

/**
 * Offset pages of GitLab's project listings (REST API docs, "Offset-based pagination", and the
 * instance limit "Max offset allowed by the REST API for offset-based pagination"): the pages of a
 * listing are consecutive slices of one order, whoever reads them; an offset page past 50,000
 * records (page x per_page) is refused with 405 and a message pointing to keyset pagination.
 */
const LIMIT_MESSAGE =
  "Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Project. Remaining records can be retrieved using keyset pagination.";

let owner: { token: string; user: { id: number } };
let member: { token: string; user: { id: number } };
let outsider: { token: string; user: { id: number } };
let group: { id: number; fullPath: string };
const made: { id: number; visibility: string }[] = [];

beforeAll(async () => {
  owner = await makeUserWithToken();
  member = await makeUserWithToken();
  outsider = await makeUserWithToken();
  group = await makeGroup(owner.user.id, { visibility: "public" });
  await addMemberTo("group", group.id, member.user.id, AccessLevel.DEVELOPER);
  for (let i = 0; i < 9; i++) {
    const visibility = ["public", "internal", "private"][i % 3];
    const p = await makeProject(owner.user.id, { groupId: group.id, groupPath: group.fullPath, visibility });
    made.push({ id: p.id, visibility });
  }
});

/** Every offset page of `path` at `perPage`, concatenated, and the same listing in one page. */
async function pagesAndWhole(path: string, token: string, perPage: number) {
  const whole = (await (await call(`${path}&per_page=100`, { token })).json()) as { id: number }[];
  const paged: number[] = [];
  for (let page = 1; page <= Math.ceil(whole.length / perPage) + 1; page++) {
    const res = await call(`${path}&per_page=${perPage}&page=${page}`, { token });
    expect(res.status).toBe(200);
    paged.push(...((await res.json()) as { id: number }[]).map((p) => p.id));
  }
  return { paged, whole: whole.map((p) => p.id) };
}

describe("offset pages of GET /groups/:id/projects are consecutive slices of one order (public, internal and member rows merged)", () => {
  for (const order of ["created_at", "name", "id"]) {
    for (const sort of ["asc", "desc"]) {
      it(`order_by=${order}&sort=${sort}, a member and a non-member`, async () => {
        for (const [who, sees] of [
          [member, made],
          [outsider, made.filter((p) => p.visibility !== "private")],
        ] as const) {
          const { paged, whole } = await pagesAndWhole(`/api/v4/groups/${group.id}/projects?order_by=${order}&sort=${sort}`, who.token, 2);
          expect(paged).toEqual(whole);
          expect([...whole].sort((a, b) => a - b)).toEqual(sees.map((p) => p.id).sort((a, b) => a - b));
        }
      });
    }
  }
  it("X-Total counts the visible rows of every branch", async () => {
    const res = await call(`/api/v4/groups/${group.id}/projects?per_page=2&page=2`, { token: member.token });
    expect(res.headers.get("X-Total")).toBe("9");
    expect(res.headers.get("X-Total-Pages")).toBe("5");
  });
});

describe("GitLab's offset limit: page x per_page past 50,000 projects is 405, pointing to keyset pagination", () => {
  it("GET /projects?page=2501 (50,020 records) is 405 with GitLab's message; page=2500 (50,000) is answered", async () => {
    const refused = await call("/api/v4/projects?page=2501", { token: outsider.token });
    expect(refused.status).toBe(405);
    expect(await refused.json()).toEqual({ error: LIMIT_MESSAGE });
    const answered = await call("/api/v4/projects?page=2500", { token: outsider.token });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual([]);
  });
  it("counts per_page: page=501&per_page=100 is 405, page=500&per_page=100 is answered", async () => {
    expect((await call("/api/v4/projects?page=501&per_page=100", { token: outsider.token })).status).toBe(405);
    expect((await call("/api/v4/projects?page=500&per_page=100", { token: outsider.token })).status).toBe(200);
  });
  it("applies to anonymous callers, administrators and a group's projects alike", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    for (const [path, token] of [
      ["/api/v4/projects?page=2501", undefined],
      ["/api/v4/projects?page=2501", admin.token],
      [`/api/v4/groups/${group.id}/projects?page=2501`, owner.token],
    ] as const) {
      const res = await call(path, { token });
      expect(res.status, path).toBe(405);
      expect(await res.json()).toEqual({ error: LIMIT_MESSAGE });
    }
  });
  it("keyset pages have no such limit (page is not read)", async () => {
    const res = await call("/api/v4/projects?pagination=keyset&order_by=id&sort=asc&page=2501", { token: outsider.token });
    expect(res.status).toBe(200);
  });
});

import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { makeUserWithToken } from "../helpers/fixtures";
import { addMemberTo, makeGroup, makeProject } from "../helpers/resources";

/**
 * docs/scaling.md, "SQL built once per shape": a listing's statement text is built the first time
 * its shape (table, kind of viewer, order, filters present) is seen and reused by every later
 * request of that shape, with only the values bound (src/db/shaped-statement.ts). These requests
 * share shapes on purpose, one after the other in the same isolate, so a value written into a
 * shape's text instead of bound (a user's id, a filter's value, an offset, a keyset position)
 * would show up as one request answering with another's rows.
 */

type Member = Awaited<ReturnType<typeof makeUserWithToken>>;
let alice: Member;
let bob: Member;
let admin: Member;
/** Each member's private group and the private projects in it. */
const own = new Map<number, { groupId: number; projectIds: number[]; paths: string[] }>();

beforeAll(async () => {
  const owner = await makeUserWithToken();
  alice = await makeUserWithToken();
  bob = await makeUserWithToken();
  admin = await makeUserWithToken({ isAdmin: true });
  for (const m of [alice, bob]) {
    const group = await makeGroup(owner.user.id, { visibility: "private" });
    await addMemberTo("group", group.id, m.user.id, AccessLevel.DEVELOPER);
    const projectIds: number[] = [];
    const paths: string[] = [];
    for (let i = 0; i < 3; i++) {
      const p = await makeProject(owner.user.id, { groupId: group.id, groupPath: group.fullPath, visibility: "private" });
      projectIds.push(p.id);
      paths.push(p.path);
    }
    own.set(m.user.id, { groupId: group.id, projectIds, paths });
  }
});

async function ids(path: string, token: string): Promise<number[]> {
  const res = await SELF.fetch(`http://localhost${path}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status, path).toBe(200);
  return ((await res.json()) as { id: number }[]).map((r) => r.id);
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

describe("a listing's SQL is built once per shape and its values are bound per request", () => {
  it("two members asking for the same listing in turn each get their own private projects and groups, never the other's", async () => {
    const tracked = new Set([...own.values()].flatMap((o) => o.projectIds));
    for (const m of [alice, bob, alice, bob]) {
      const mine = own.get(m.user.id)!;
      for (const path of ["/api/v4/projects?membership=true", "/api/v4/projects?visibility=private", "/api/v4/projects?per_page=100"]) {
        const seen = (await ids(path, m.token)).filter((id) => tracked.has(id));
        expect(sorted(seen), `${path} as ${m.user.id}`).toEqual(sorted(mine.projectIds));
      }
      const groupsSeen = await ids("/api/v4/groups?per_page=100", m.token);
      const other = [...own.entries()].find(([id]) => id !== m.user.id)![1].groupId;
      expect(groupsSeen, `groups as ${m.user.id}`).toContain(mine.groupId);
      expect(groupsSeen, `groups as ${m.user.id}`).not.toContain(other);
    }
  });

  it("one shape with different values: a filter's value, the page's offset and the keyset's position", async () => {
    const group = own.get(alice.user.id)!;
    const inGroup = sorted(group.projectIds);
    // The same filter, two values.
    for (const [visibility, expected] of [
      ["private", inGroup],
      ["public", []],
      ["private", inGroup],
    ] as const) {
      const seen = (await ids(`/api/v4/groups/${group.groupId}/projects?visibility=${visibility}`, admin.token)).filter((id) => inGroup.includes(id));
      expect(sorted(seen), visibility).toEqual(expected);
    }
    // The same order, successive offsets: each page its own row.
    const pages = [];
    for (let page = 1; page <= 3; page++) pages.push(...(await ids(`/api/v4/projects?membership=true&order_by=id&sort=asc&per_page=1&page=${page}`, alice.token)));
    expect(pages).toEqual(inGroup);
    // The same keyset shape, successive positions.
    const walked = [];
    const keyset = "/api/v4/projects?membership=true&pagination=keyset&order_by=id&sort=asc&per_page=1";
    for (let after: number | null = null, i = 0; i < 3; i++) {
      const [next] = await ids(after === null ? keyset : `${keyset}&id_after=${after}`, alice.token);
      walked.push(next);
      after = next;
    }
    expect(walked).toEqual(inGroup);
  });

  it("two searches of one shape, one after the other, each find their own matches (projects, users)", async () => {
    const mine = own.get(alice.user.id)!;
    for (const [i, path] of [...mine.paths.entries(), ...mine.paths.entries()]) {
      expect(await ids(`/api/v4/projects?search=${path}`, alice.token), path).toEqual([mine.projectIds[i]]);
      // The same search by keyset (its own shape): the match, and nothing past it.
      expect(await ids(`/api/v4/projects?search=${path}&pagination=keyset&order_by=id&sort=asc&id_after=${mine.projectIds[i] - 1}`, alice.token), path).toEqual([mine.projectIds[i]]);
    }
    // Bob's projects are private to him: the same search shape as Alice finds none of them.
    for (const path of own.get(bob.user.id)!.paths) expect(await ids(`/api/v4/projects?search=${path}`, alice.token), path).toEqual([]);
    for (const who of [alice, bob, alice]) {
      expect(await ids(`/api/v4/users?search=${who.user.username}`, admin.token)).toEqual([who.user.id]);
    }
  });
});

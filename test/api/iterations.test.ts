import { describe, expect, it } from "vitest";
import { makeUserWithToken } from "../helpers/fixtures";
import { makeGroup, makeProject } from "../helpers/resources";
import { body, callAt } from "../helpers/versioned";

/** Iterations API (spec part b: state started removed in 15.0, current replaces it). */
const admin = await makeUserWithToken({ isAdmin: true });
const day = (offset: number) => new Date(Date.now() + offset * 86400_000).toISOString().slice(0, 10);

async function groupWithIterations() {
  const group = await makeGroup(admin.user.id);
  const make = async (start: number, due: number, title: string) => {
    const res = await callAt("16.0", `/api/v4/groups/${group.id}/iterations`, { ...body({ title, start_date: day(start), due_date: day(due) }), token: admin.token });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: number; state: number };
  };
  const closed = await make(-20, -11, "closed");
  const current = await make(-3, 3, "current");
  const upcoming = await make(10, 20, "upcoming");
  return { group, closed, current, upcoming };
}

const ids = async (res: Response) => ((await res.json()) as { id: number }[]).map((i) => i.id);

describe("iterations: state derived from the dates", () => {
  it("opened, upcoming, current, closed and all select by date; state numbers are 1, 2, 3", async () => {
    const { group, closed, current, upcoming } = await groupWithIterations();
    expect([closed.state, current.state, upcoming.state]).toEqual([3, 2, 1]);
    const url = (s: string) => `/api/v4/groups/${group.id}/iterations?state=${s}`;
    expect(await ids(await callAt("16.0", url("opened"), { token: admin.token }))).toEqual([current.id, upcoming.id]);
    expect(await ids(await callAt("16.0", url("upcoming"), { token: admin.token }))).toEqual([upcoming.id]);
    expect(await ids(await callAt("16.0", url("current"), { token: admin.token }))).toEqual([current.id]);
    expect(await ids(await callAt("16.0", url("closed"), { token: admin.token }))).toEqual([closed.id]);
    const all = await callAt("16.0", url("all"), { token: admin.token });
    expect(all.headers.get("X-Total")).toBe("3");
  });
  it("a project in a subgroup lists its ancestors' iterations", async () => {
    const { group, current } = await groupWithIterations();
    const sub = await makeGroup(admin.user.id, { parentId: group.id });
    const project = await makeProject(admin.user.id, { groupId: sub.id, groupPath: sub.fullPath });
    expect(await ids(await callAt("16.0", `/api/v4/projects/${project.id}/iterations?state=current`, { token: admin.token }))).toEqual([current.id]);
  });
});

describe("iterations-state-started", () => {
  it("state=started is the same as current at 14.10 (deprecated)", async () => {
    const { group, current } = await groupWithIterations();
    const res = await callAt("14.10", `/api/v4/groups/${group.id}/iterations?state=started`, { token: admin.token });
    expect(res.headers.get("Deprecation")).toBeTruthy();
    expect(await ids(res)).toEqual([current.id]);
  });
  it("state=started is refused from 15.0 with a 400 naming current", async () => {
    const { group } = await groupWithIterations();
    const res = await callAt("15.0", `/api/v4/groups/${group.id}/iterations?state=started`, { token: admin.token });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Record<string, any>).error).toContain("current");
  });
});

describe("iterations: creation is an administrator extension; bad input", () => {
  it("a group owner who is not an administrator cannot create (403); overlapping or reversed dates are 400", async () => {
    const owner = await makeUserWithToken();
    const group = await makeGroup(owner.user.id);
    const denied = await callAt("16.0", `/api/v4/groups/${group.id}/iterations`, { ...body({ start_date: day(1), due_date: day(2) }), token: owner.token });
    expect(denied.status).toBe(403);
    const reversed = await callAt("16.0", `/api/v4/groups/${group.id}/iterations`, { ...body({ start_date: day(5), due_date: day(2) }), token: admin.token });
    expect(reversed.status).toBe(400);
    await callAt("16.0", `/api/v4/groups/${group.id}/iterations`, { ...body({ start_date: day(1), due_date: day(5) }), token: admin.token });
    const overlap = await callAt("16.0", `/api/v4/groups/${group.id}/iterations`, { ...body({ start_date: day(3), due_date: day(8) }), token: admin.token });
    expect(overlap.status).toBe(400);
    const badDate = await callAt("16.0", `/api/v4/groups/${group.id}/iterations`, { ...body({ start_date: "tomorrow", due_date: day(8) }), token: admin.token });
    expect((await badDate.json()) as Record<string, any>).toEqual({ error: "start_date is invalid" });
    const badState = await callAt("16.0", `/api/v4/groups/${group.id}/iterations?state=soon`, { token: owner.token });
    expect(badState.status).toBe(400);
    expect((await badState.json()) as Record<string, any>).toEqual({ error: "state does not have a valid value" });
  });
});

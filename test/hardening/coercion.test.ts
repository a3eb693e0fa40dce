import { describe, expect, it } from "vitest";
import { z } from "zod";
import { arrayParam, boolParam, coerceBool, idParam, intParam } from "../../src/api/v4/params";
import { call, makeUserWithToken } from "../helpers/fixtures";
import { makeProject, makeRunner } from "../helpers/resources";

/** Issue 12 "GitLab's parameter coercion" (Grape): one mechanism for every REST route. */
describe("Grape's Boolean", () => {
  for (const v of ["true", "True", "TRUE", "t", "T", "yes", "Yes", "y", "on", "ON", "1", true, 1]) it(`${JSON.stringify(v)} is true`, () => expect(coerceBool(v)).toBe(true));
  for (const v of ["false", "False", "f", "F", "no", "NO", "n", "off", "Off", "0", false, 0]) it(`${JSON.stringify(v)} is false`, () => expect(coerceBool(v)).toBe(false));
  for (const v of ["maybe", "2", "", "tru", null, [], {}]) it(`${JSON.stringify(v)} is refused`, () => expect(boolParam.safeParse(v).success).toBe(false));
});

describe("Integers and ids are strict decimal (Grape's coercion)", () => {
  for (const v of ["1", "42", "9007199254740991", 7]) it(`${JSON.stringify(v)} is an id`, () => expect(idParam.safeParse(v).success).toBe(true));
  for (const v of [" 1", "1 ", "0x10", "1e3", "1.0", "+1", "01", "0", "-1", "", "9007199254740992", "99999999999999999999", 1.5, true, null])
    it(`${JSON.stringify(v)} is not an id`, () => expect(idParam.safeParse(v).success).toBe(false));
  it("intParam(0) takes 0 and refuses -1", () => {
    expect(intParam(0).safeParse("0").data).toBe(0);
    expect(intParam(0).safeParse("-1").success).toBe(false);
    expect(intParam().safeParse("-12").data).toBe(-12);
  });
});

describe("Arrays: JSON arrays, key[] repeats and comma lists", () => {
  const tags = arrayParam(z.string());
  it("a comma list splits and drops empty items", () => expect(tags.parse("a, b,,c")).toEqual(["a", "b", "c"]));
  it("an array stays an array", () => expect(tags.parse(["a", "b"])).toEqual(["a", "b"]));
  it("items are checked", () => expect(arrayParam(idParam).safeParse("1,x").success).toBe(false));
});

describe("routes use the one mechanism", async () => {
  const admin = await makeUserWithToken({ isAdmin: true });
  const project = await makeProject(admin.user.id);
  const tag = `t${Date.now().toString(36)}`;
  const { runner: paused } = await makeRunner({ runnerType: "project_type", projectId: project.id, description: "sweep paused", paused: true, tagList: [tag, "x"] });
  const { runner: running } = await makeRunner({ runnerType: "project_type", projectId: project.id, description: "sweep running", tagList: [tag] });
  const ids = async (query: string) => {
    const res = await call(`/api/v4/projects/${project.id}/runners?${query}`, { token: admin.token });
    expect(res.status, query).toBe(200);
    return ((await res.json()) as { id: number }[]).map((r) => r.id).filter((id) => id === paused.id || id === running.id);
  };
  it("paused=True (python-gitlab's spelling) filters paused runners", async () => {
    expect(await ids("paused=True")).toEqual([paused.id]);
    expect(await ids("paused=OFF")).toEqual([running.id]);
  });
  it("paused=maybe is GitLab's 400", async () => {
    const res = await call(`/api/v4/projects/${project.id}/runners?paused=maybe`, { token: admin.token });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "paused is invalid" });
  });
  it("tag_list as a comma list and as tag_list[] repeats", async () => {
    expect(await ids(`tag_list=${tag},x`)).toEqual([paused.id]);
    expect(await ids(`tag_list[]=${tag}&tag_list[]=x`)).toEqual([paused.id]);
  });
  it("a non-decimal page is GitLab's 400", async () => {
    const res = await call("/api/v4/projects?page=0x2", { token: admin.token });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "page is invalid" });
  });
  it("users?active=YES is the boolean true", async () => {
    const res = await call("/api/v4/users?active=YES", { token: admin.token });
    expect(res.status).toBe(200);
  });
});

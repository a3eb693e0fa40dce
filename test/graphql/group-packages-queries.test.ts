import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { AccessLevel } from "../../src/domain/access";
import { makeUser, unique } from "../helpers/fixtures";
import { countingEnv } from "../helpers/d1-counting";
import { addMemberTo, makeGroup, makeProject } from "../helpers/resources";
import { memberToken, packageVersion } from "./fixtures";

/**
 * Issue 12, review mend 3: Group.packages loads what each of the group's projects needs (the
 * projects and the caller's access level on each) in one batched query, so the D1 statements of
 * the request do not grow with the number of projects. Counted on the real D1 binding.
 */
async function groupWithProjects(n: number) {
  const owner = await makeUser();
  const group = await makeGroup(owner.id, { visibility: "private" });
  const sub = await makeGroup(owner.id, { visibility: "private", parentId: group.id });
  const names: string[] = [];
  for (let i = 0; i < n; i++) {
    const parent = i % 2 ? sub : group;
    const project = await makeProject(owner.id, { groupId: parent.id, groupPath: parent.fullPath, visibility: "private" });
    const name = unique("pkg");
    await packageVersion(project.id, name, "1.0.0");
    names.push(name);
  }
  // A project where the caller also has a lower direct membership: the inherited level wins.
  const extra = await makeProject(owner.id, { groupId: sub.id, groupPath: sub.fullPath, visibility: "private" });
  await packageVersion(extra.id, unique("extra"), "1.0.0");
  return { group, sub, extra, names };
}

async function groupPackages(fullPath: string, token: string) {
  const { env: e, counts } = countingEnv();
  const run = async () => {
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request("http://localhost/api/graphql", {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ query: "query($p: ID!) { group(fullPath: $p) { packages(first: 100) { count nodes { name } } } }", variables: { p: fullPath } }),
      }),
      e,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return (await res.json()) as any;
  };
  await run(); // first start and the token's last use out of the way
  counts.statements = counts.roundTrips = 0;
  const body = await run();
  return { body, statements: counts.statements };
}

describe("Group.packages makes no per-project queries (a fixed number of D1 queries for any number of projects)", () => {
  it("the statements are the same for 2 and for 8 projects, and only readable projects' packages are listed", async () => {
    const small = await groupWithProjects(2);
    const large = await groupWithProjects(8);
    const results = [];
    for (const g of [small, large]) {
      // Reporter on the top group (inherited by the subgroup), and guest directly on one project.
      const reporter = await memberToken("group", g.group.id, AccessLevel.REPORTER);
      await addMemberTo("project", g.extra.id, reporter.user.id, AccessLevel.GUEST);
      results.push(await groupPackages(g.group.fullPath, reporter.token));
    }
    for (const [i, g] of [small, large].entries()) {
      expect(results[i].body.errors).toBeUndefined();
      // Reporter inherited from the group covers the extra project too (max of memberships).
      expect(results[i].body.data.group.packages.count).toBe(g.names.length + 1);
      expect(results[i].body.data.group.packages.nodes.map((n: any) => n.name)).toEqual(expect.arrayContaining(g.names));
    }
    expect(results[1].statements).toBe(results[0].statements);
  });

  it("a guest of the group sees no package of its private projects", async () => {
    const g = await groupWithProjects(3);
    const guest = await memberToken("group", g.group.id, AccessLevel.GUEST);
    const { body } = await groupPackages(g.group.fullPath, guest.token);
    expect(body.errors).toBeUndefined();
    expect(body.data.group.packages.count).toBe(0);
  });
});

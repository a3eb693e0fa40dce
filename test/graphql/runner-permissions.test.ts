import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { enableRunner } from "../../src/db/runners";
import { AccessLevel } from "../../src/domain/access";
import { call } from "../helpers/fixtures";
import { makeRunner } from "../helpers/resources";
import { gid, groupWithProject, memberToken } from "./fixtures";
import { gql } from "./helpers";

/**
 * REST and GraphQL decide who reads and manages a runner by one rule
 * (runnerAccessLevel + runnerRequiredLevel, GitLab's runner policy): maintainers of a runner's group
 * or of any one of its projects read it; managing a group runner takes the group's owner.
 */
const q = `query($id: CiRunnerID!) { runner(id: $id) { description } }`;

async function bothSee(runnerId: number, token: string): Promise<[number, boolean]> {
  const rest = await call(`/api/v4/runners/${runnerId}`, { token });
  const graph = await gql(q, { variables: { id: gid("Ci::Runner", runnerId) }, token });
  return [rest.status, graph.body.data.runner !== null];
}

describe("one runner permission rule for REST and GraphQL", () => {
  it("a project runner on two projects: a maintainer of the second reads it in both; a developer in neither", async () => {
    const a = await groupWithProject();
    const b = await groupWithProject();
    const { runner } = await makeRunner({ runnerType: "project_type", projectId: a.project.id, description: "two-projects" });
    await enableRunner(getDb(env.DB), runner.id, b.project.id);
    const { token: maintainer } = await memberToken("project", b.project.id, AccessLevel.MAINTAINER);
    expect(await bothSee(runner.id, maintainer)).toEqual([200, true]);
    const { token: developer } = await memberToken("project", b.project.id, AccessLevel.DEVELOPER);
    expect(await bothSee(runner.id, developer)).toEqual([403, false]);
  });

  it("a group runner: a group maintainer reads it in both but manages it in neither; the owner manages it", async () => {
    const { group } = await groupWithProject();
    const { runner } = await makeRunner({ runnerType: "group_type", groupId: group.id, description: "group-runner" });
    const { token: maintainer } = await memberToken("group", group.id, AccessLevel.MAINTAINER);
    expect(await bothSee(runner.id, maintainer)).toEqual([200, true]);
    // Managing: REST's PUT and GraphQL's runnerUpdate, the same rename through each family.
    const m = `mutation($id: CiRunnerID!, $description: String) { runnerUpdate(input: { id: $id, description: $description }) { errors runner { description } } }`;
    const manage = async (token: string, description: string): Promise<[number, boolean]> => {
      const rest = await call(`/api/v4/runners/${runner.id}`, { method: "PUT", token, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ description }) });
      const graph = await gql(m, { variables: { id: gid("Ci::Runner", runner.id), description }, token });
      return [rest.status, graph.body.data?.runnerUpdate?.errors?.length === 0];
    };
    expect(await manage(maintainer, "renamed by a maintainer")).toEqual([403, false]);
    const { token: owner } = await memberToken("group", group.id, AccessLevel.OWNER);
    const seen = async () => (await gql(q, { variables: { id: gid("Ci::Runner", runner.id) }, token: owner })).body.data.runner.description;
    expect(await seen()).toBe("group-runner");
    expect(await manage(owner, "renamed by the owner")).toEqual([200, true]);
    expect(await seen()).toBe("renamed by the owner");
  });
});

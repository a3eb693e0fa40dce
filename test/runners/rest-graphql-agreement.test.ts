import { describe, expect, it } from "vitest";
import { makeUserWithToken, unique } from "../helpers/fixtures";
import { callAt } from "../helpers/versioned";
import { DAY, makeRunner } from "../helpers/resources";
import { gid } from "../graphql/fixtures";
import { gql } from "../graphql/helpers";

/**
 * Spec part b, "States and transitions" (runner status) and the tag rules: REST and GraphQL read
 * one definition (src/domain/runner-status.ts, src/domain/runner-settings.ts), so for the same
 * runner at the same service version they report the same status (GraphQL in upper case) and the
 * same tags, and their status filters select the same runners.
 */
const HOUR = 3600_000;
const SPECS = {
  online: { contactedAt: () => Date.now() - HOUR / 2 },
  offline: { contactedAt: () => Date.now() - 3 * HOUR },
  silent100days: { contactedAt: () => Date.now() - 100 * DAY },
  neverContacted: { contactedAt: () => null },
  oldNeverContacted: { contactedAt: () => null, createdAt: () => Date.now() - 100 * DAY },
  paused: { contactedAt: () => Date.now() - HOUR / 2, paused: true },
} as const;

async function runners() {
  const tag = unique("agree");
  const made: Record<string, number> = {};
  for (const [name, s] of Object.entries(SPECS)) {
    const { runner } = await makeRunner({
      runnerType: "instance_type",
      tagList: [tag, ` ${name} `, "zeta", "alpha", "zeta"],
      contactedAt: s.contactedAt(),
      createdAt: "createdAt" in s ? s.createdAt() : Date.now() - DAY,
      paused: "paused" in s ? s.paused : false,
    });
    made[name] = runner.id;
  }
  return { tag, made };
}

describe("REST and GraphQL agree on a runner's status and tags (one rule each, in the domain)", () => {
  for (const version of ["14.10", "15.0", "16.0"]) {
    it(`${version}: GET /runners/:id status and tag_list equal CiRunner.status (lower-cased) and tagList`, async () => {
      const { token } = await makeUserWithToken({ isAdmin: true });
      const { tag, made } = await runners();
      const q = await gql(`query($tag: String!) { runners(tagList: [$tag]) { nodes { id status tagList } } }`, { variables: { tag }, token, version });
      expect(q.body.errors).toBeUndefined();
      const byId = new Map<string, { status: string; tagList: string[] }>(q.body.data.runners.nodes.map((n: { id: string; status: string; tagList: string[] }) => [n.id, n]));
      const seen = new Set<string>();
      for (const [name, id] of Object.entries(made)) {
        const rest = (await (await callAt(version, `/api/v4/runners/${id}`, { token })).json()) as { status: string; tag_list: string[] };
        const node = byId.get(gid("Ci::Runner", id))!;
        expect(node, name).toBeDefined();
        expect(node.status.toLowerCase(), `${name} at ${version}`).toBe(rest.status);
        expect(node.tagList, name).toEqual(rest.tag_list);
        expect(rest.tag_list, name).toEqual([tag, name, "alpha", "zeta"].sort());
        seen.add(rest.status);
      }
      // The fixtures cover the statuses the version reports.
      expect(seen.size).toBeGreaterThanOrEqual(4);
    });
  }

  it("16.0: each contact status filter selects the same runners on both surfaces", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const { tag } = await runners();
    for (const status of ["online", "offline", "stale", "never_contacted"]) {
      const rest = (await (await callAt("16.0", `/api/v4/runners/all?tag_list=${tag}&status=${status}`, { token })).json()) as { id: number }[];
      const q = await gql(`query($tag: String!) { runners(tagList: [$tag], status: ${status.toUpperCase()}) { nodes { id } } }`, { variables: { tag }, token, version: "16.0" });
      expect(q.body.errors).toBeUndefined();
      const gqlIds = q.body.data.runners.nodes.map((n: { id: string }) => n.id).sort();
      expect(rest.length, status).toBeGreaterThan(0);
      expect(gqlIds, status).toEqual(rest.map((r) => gid("Ci::Runner", r.id)).sort());
    }
  });
});

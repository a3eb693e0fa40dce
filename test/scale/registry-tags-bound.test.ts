import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { createRepository, TAGS_PER_REPOSITORY } from "../../src/db/registry";
import { call, makeUserWithToken, unique } from "../helpers/fixtures";
import { makeProject } from "../helpers/resources";

/**
 * docs/registry.md and docs/scaling.md, "Bounded responses": `?tags=true` on a repository listing
 * carries each repository's first TAGS_PER_REPOSITORY tags by name; tags_count, tag_count and size
 * stay exact; the full list is the paginated GET .../repositories/:id/tags.
 */
describe("?tags=true is bounded per repository", () => {
  it("a repository with more tags than the bound: the first by name, an exact count and size", async () => {
    const owner = await makeUserWithToken();
    const project = await makeProject(owner.user.id);
    const repo = await createRepository(getDb(env.DB), project.id, project.pathWithNamespace, unique("img"));
    const n = TAGS_PER_REPOSITORY + 5;
    await env.DB.prepare(
      `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?2)
       INSERT INTO registry_tags (repository_id, name, digest, revision, total_size, created_at)
       SELECT ?1, printf('t%03d', i), 'sha256:' || i, 'r', 10, 0 FROM k`,
    )
      .bind(repo.id, n)
      .run();
    const expected = Array.from({ length: TAGS_PER_REPOSITORY }, (_, i) => `t${String(i + 1).padStart(3, "0")}`);

    const list = await call(`/api/v4/projects/${project.id}/registry/repositories?tags=true&tags_count=true`, { token: owner.token });
    expect(list.status).toBe(200);
    const [listed] = (await list.json()) as { tags: { name: string }[]; tags_count: number }[];
    expect(listed.tags.map((t) => t.name)).toEqual(expected);
    expect(listed.tags_count).toBe(n);

    const one = await call(`/api/v4/registry/repositories/${repo.id}?tags=true&tag_count=true&size=true`, { token: owner.token });
    const body = (await one.json()) as { tags: { name: string }[]; tags_count: number; size: number };
    expect(body.tags.map((t) => t.name)).toEqual(expected);
    expect(body.tags_count).toBe(n);
    expect(body.size).toBe(10 * n);

    const all = await call(`/api/v4/projects/${project.id}/registry/repositories/${repo.id}/tags?per_page=100`, { token: owner.token });
    expect(((await all.json()) as unknown[]).length).toBe(n);
  });
});

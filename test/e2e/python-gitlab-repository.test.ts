import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { rootPat } from "./pages-support";

/**
 * GitLab's Repository API read by a real client (Debian's python3-gitlab): files.get, files.raw,
 * repository_tree, branches and commits of the demo project, whose repository `npm start` seeds
 * with a README commit. The driver is test/e2e/python_gitlab_repository.py.
 */
const baseURL = inject("baseURL");
const run = promisify(execFile);
let pat: string;

beforeAll(async () => {
  pat = await rootPat(baseURL, inject("rootPassword"), "python-gitlab repository e2e");
});

describe("python-gitlab reads a repository without cloning it", () => {
  it("project.files.get, files.raw, repository_tree, branches.list and commits.list work end to end", async () => {
    const { stdout } = await run("/usr/bin/python3", ["test/e2e/python_gitlab_repository.py", baseURL], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GITLAB_PAT: pat },
      timeout: 120_000,
    });
    const o = JSON.parse(stdout.trim().split("\n").pop()!);
    expect(o.readme_name).toBe("README.md");
    expect(o.readme_text).toContain("# Demo App");
    expect(o.raw_equal).toBe(true);
    expect(o.tree).toEqual([["README.md", "blob"]]);
    expect(o.keyset_tree).toEqual(o.tree);
    expect(o.branches).toEqual(["main"]);
    expect(o.main_default).toBe(true);
    expect(o.commit_titles).toEqual(["Initial commit"]);
    expect(o.commit_stats.additions).toBeGreaterThan(0);
    expect(o.missing_status).toBe(404);
  });
});

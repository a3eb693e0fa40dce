import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { rootPat } from "./pages-support";

/**
 * GitLab's keyset pagination as python-gitlab uses it: Debian's python3-gitlab (run by
 * /usr/bin/python3) lists /projects, /groups, /users and /audit_events with pagination="keyset" and its iterator,
 * which follows the Link header's rel="next" until there is none. Every walk must give exactly
 * the rows an offset listing gives, in the same order, with no total (test/e2e/python_gitlab_keyset.py).
 */
const baseURL = inject("baseURL");
const run = promisify(execFile);
let pat: string;

beforeAll(async () => {
  pat = await rootPat(baseURL, inject("rootPassword"), "python-gitlab keyset");
});

type Walk = { keyset: number[]; offset: number[]; total: number | null };

describe("python-gitlab's iterator walks every page with keyset pagination", () => {
  it("projects by id (both directions), groups by name, users by username and created_at, audit events by id descending", async () => {
    const { stdout } = await run("/usr/bin/python3", ["test/e2e/python_gitlab_keyset.py", baseURL], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GITLAB_PAT: pat },
      timeout: 120_000,
    });
    const o = JSON.parse(stdout.trim().split("\n").pop()!) as Record<string, Walk> & { unsupported: unknown };
    for (const name of ["projects", "projects_desc", "groups", "users", "users_created", "audit_events"]) {
      const w = o[name];
      expect(w.keyset.length, name).toBeGreaterThanOrEqual(3);
      expect(w.keyset, name).toEqual(w.offset);
      expect(w.total, name).toBeNull();
    }
    expect(o.unsupported).toEqual({ status: 405, message: "Keyset pagination is not yet available for this type of request" });
  });
});

import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { rootPat } from "./pages-support";

/**
 * GitLab's Token information API as an administrator's script drives it: Debian's python3-gitlab
 * (run by /usr/bin/python3) identifies and revokes a leaked personal access token, a deploy token
 * and an application secret with gl.http_post / gl.http_delete (test/e2e/python_gitlab_admin_token.py).
 */
const baseURL = inject("baseURL");
const run = promisify(execFile);
let pat: string;

beforeAll(async () => {
  pat = await rootPat(baseURL, inject("rootPassword"), "python-gitlab admin token");
});

describe("GitLab Token information API with python-gitlab: identify, then revoke or reset", () => {
  it("a leaked PAT is identified and revoked (401 afterwards); a deploy token revoked; an application secret reset; an unknown value 404", async () => {
    const { stdout } = await run("/usr/bin/python3", ["test/e2e/python_gitlab_admin_token.py", baseURL], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GITLAB_PAT: pat },
      timeout: 120_000,
    });
    const o = JSON.parse(stdout.trim().split("\n").pop()!) as Record<string, any>;
    expect(o.pat_works_before).toBe(200);
    expect(o.pat_identified.user_id).toBe(o.pat_identified.expected_user_id);
    expect(o.pat_identified).toMatchObject({ name: "leaked", revoked: false });
    expect(o.pat_revoke_status).toBe(204);
    expect(o.pat_works_after).toBe(401);
    expect(o.pat_identified_after).toBe(true);
    expect(o.deploy_identified).toBe("ci");
    expect(o.deploy_revoke_status).toBe(204);
    expect(o.deploy_after).toBe(404);
    expect(o.secret_identified).toBe(true);
    expect(o.secret_reset_status).toBe(204);
    expect(o.secret_after).toBe(404);
    expect(o.unknown).toBe(404);
  });
});

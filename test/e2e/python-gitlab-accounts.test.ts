import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { rootPat } from "./pages-support";

/**
 * docs/operations.md, "Recover an account", with a GitLab client from another ecosystem (Debian's
 * python3-gitlab): an administrator edits a user and sets a password through `user.save()`
 * (GitLab's PUT /users/:id); the user's next web sign-in leads to choosing their own password.
 * The driver is test/e2e/python_gitlab_accounts.py.
 */
const baseURL = inject("baseURL");
const run = promisify(execFile);
const NEW_PASSWORD = "a Temporary password 55";
let pat: string;

beforeAll(async () => {
  pat = await rootPat(baseURL, inject("rootPassword"), "python-gitlab accounts e2e");
});

describe("python-gitlab sets a user's password (PUT /api/v4/users/:id) and deletes users (DELETE /api/v4/users/:id)", () => {
  it("user.save() renames and sets the password; disable_two_factor on a user without it is GitLab's 400; gl.users.delete(id) with and without hard_delete leaves a 404; the next sign-in leads to /profile/password/new", async () => {
    const { stdout } = await run("/usr/bin/python3", ["test/e2e/python_gitlab_accounts.py", baseURL], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GITLAB_PAT: pat, NEW_PASSWORD },
      timeout: 120_000,
    });
    const o = JSON.parse(stdout.trim().split("\n").pop()!) as {
      username: string;
      name: string;
      disable_two_factor: { status: number; message: string };
      deleted: number | string;
      hard_deleted: number | string;
    };
    expect(o.deleted).toBe(404);
    expect(o.hard_deleted).toBe(404);
    expect(o.name).toBe("After Rename");
    expect(o.disable_two_factor).toEqual({ status: 400, message: "400 Bad request - Two-factor authentication is not enabled for this user" });

    // The web sign-in with the password the administrator set, as a browser's form does.
    const page = await fetch(`${baseURL}/users/sign_in`);
    const cookies = page.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const csrf = /name="authenticity_token" value="([^"]+)"/.exec(await page.text())![1];
    const res = await fetch(`${baseURL}/users/sign_in`, {
      method: "POST",
      redirect: "manual",
      headers: { Cookie: cookies, "Content-Type": "application/x-www-form-urlencoded", Origin: baseURL },
      body: new URLSearchParams({ authenticity_token: csrf, username: o.username, password: NEW_PASSWORD, redirect_to: "/" }),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/profile/password/new?redirect_to=%2F");
  });
});

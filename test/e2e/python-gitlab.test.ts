import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { rootPat, rootToken } from "./pages-support";

/**
 * Issue 12 "GitLab's parameter coercion": a GitLab client from another ecosystem (Debian's
 * python3-gitlab, run by /usr/bin/python3) drives /api/v4 against `npm start` with a personal
 * access token: booleans as Python sends them (`True`), arrays as comma lists and JSON arrays,
 * pagination by page and by iterator. The driver is test/e2e/python_gitlab_driver.py.
 */
const baseURL = inject("baseURL");
const run = promisify(execFile);
let pat: string;
let oauthToken: string;

type Observations = {
  username: string;
  active_users: number;
  user_get: string;
  blocked_users_false: number;
  all_users: number;
  blocked_false_missing: number;
  project_path: string;
  projects_owned: string[];
  projects_page1: number;
  projects_stable: number;
  projects_stable_walked_once: boolean;
  projects_iterated_repeats: number;
  projects_iterated_unknown: number;
  runners_paused: [string, boolean][];
  runners_not_paused: number;
  runners_tagged: string[];
  runners_status: string[];
  groups_owned: number;
  bad_bool: { status: number; message: string } | string;
  pat_scopes: string[];
  pat_listed: boolean;
  oauth_username: string;
};

beforeAll(async () => {
  pat = await rootPat(baseURL, inject("rootPassword"), "python-gitlab e2e");
  oauthToken = await rootToken(baseURL, inject("rootPassword"));
});

describe("python-gitlab drives /api/v4 (Grape's coercion)", () => {
  it("authenticates with a PAT and with an OAuth token (oauth_token=), lists and gets users, projects, runners, groups and tokens", async () => {
    const { stdout } = await run("/usr/bin/python3", ["test/e2e/python_gitlab_driver.py", baseURL], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GITLAB_PAT: pat, GITLAB_OAUTH_TOKEN: oauthToken },
      timeout: 120_000,
    });
    const o = JSON.parse(stdout.trim().split("\n").pop()!) as Observations;
    expect(o.username).toBe("root");
    // docs/clients.md: an OAuth access token through oauth_token= authenticates as its user.
    expect(o.oauth_username).toBe("root");
    expect(o.user_get).toBe("root");
    expect(o.active_users).toBeGreaterThan(0);
    // Grape's coercion: "False" is false (no filter, every user), never read as a true blocked=.
    expect(o.blocked_false_missing).toBe(0);
    expect(o.blocked_users_false).toBeLessThanOrEqual(o.all_users);
    expect(o.active_users).toBeLessThanOrEqual(o.all_users);
    expect(o.project_path).toBe("demo/demo-app");
    expect(o.projects_owned).toContain("demo/demo-app");
    // Pagination: page 1 of size 1, and the iterator walks every page: each project that existed
    // throughout exactly once, none twice, none unknown (other files add projects meanwhile).
    expect(o.projects_page1).toBe(1);
    expect(o.projects_stable).toBeGreaterThan(1);
    expect(o.projects_stable_walked_once).toBe(true);
    expect(o.projects_iterated_repeats).toBe(0);
    expect(o.projects_iterated_unknown).toBe(0);
    // runners.list(paused=True): python sends "True", which Grape accepts. The server is shared, so
    // other files' runners may be listed too: the demo's paused runner is, and only paused ones.
    expect(o.runners_paused).toContainEqual(["paused runner", true]);
    expect(o.runners_paused.every(([, paused]) => paused)).toBe(true);
    expect(o.runners_not_paused).toBeGreaterThan(0);
    // tag_list=docker,linux: the demo's tagged runner, not one tagged otherwise (gitbeaker.test.ts registers "e2e").
    expect(o.runners_tagged).toContain("online instance runner");
    expect(o.runners_tagged).not.toContain("e2e runner");
    expect(o.runners_status.length).toBeGreaterThan(1);
    expect(o.groups_owned).toBeGreaterThan(0);
    expect(o.bad_bool).toEqual({ status: 400, message: "paused is invalid" });
    expect(o.pat_scopes).toEqual(["read_api", "read_user"]);
    expect(o.pat_listed).toBe(true);
  });
});

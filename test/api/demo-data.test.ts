import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { withVars } from "../../src/config";
import { ensureDemoData } from "../../src/setup/demo-data";
import { makePat, makeUser } from "../helpers/fixtures";
import { callAt } from "../helpers/versioned";

/** Demo data (issue 5, Demo data): seeded once and idempotently when SEED_DEMO_DATA is "true". */
describe("demo data", () => {
  it("is not seeded unless SEED_DEMO_DATA is true", async () => {
    await ensureDemoData(withVars(env, { SEED_DEMO_DATA: "false" }));
    const root = await makeUser({ username: "root", isAdmin: true });
    const token = await makePat(root.id);
    expect((await callAt("16.0", "/api/v4/groups/demo", { token })).status).toBe(404);

    const seeded = withVars(env, { SEED_DEMO_DATA: "true" });
    // Two concurrent starts and a later one: one set of data.
    await Promise.all([ensureDemoData(seeded), ensureDemoData(seeded)]);
    await ensureDemoData(seeded);
    const projects = await callAt("16.0", "/api/v4/groups/demo/projects", { token });
    const list = (await projects.json()) as { id: number }[];
    expect(list).toHaveLength(1);
    const pid = list[0].id;

    const runners = (await (await callAt("15.0", "/api/v4/runners/all?per_page=100", { token })).json()) as { status: string; paused: boolean }[];
    expect(new Set(runners.map((r) => r.status))).toEqual(new Set(["online", "offline", "stale", "never_contacted"]));
    expect(runners.some((r) => r.paused)).toBe(true);
    const legacy = (await (await callAt("14.10", "/api/v4/runners/all?per_page=100", { token })).json()) as { status: string }[];
    expect(new Set(legacy.map((r) => r.status))).toEqual(new Set(["online", "offline", "not_connected", "paused"]));

    const packages = (await (await callAt("14.10", `/api/v4/projects/${pid}/packages`, { token })).json()) as { pipelines: unknown[] }[];
    expect(packages.map((p) => p.pipelines.length)).toEqual([1, 2]);
    const repos = (await (await callAt("16.0", `/api/v4/projects/${pid}/registry/repositories?tags_count=true`, { token })).json()) as { tags_count: number }[];
    expect(repos.map((r) => r.tags_count)).toEqual([2, 3]);
    const mrs = (await (await callAt("16.0", `/api/v4/projects/${pid}/merge_requests?state=merged`, { token })).json()) as { merge_user: { username: string } }[];
    expect(mrs[0].merge_user.username).toBe("root");
    const its = (await (await callAt("16.0", `/api/v4/projects/${pid}/iterations`, { token })).json()) as { state: number }[];
    expect(its.map((i) => i.state).sort()).toEqual([1, 2, 3]);
    expect((await (await callAt("16.0", `/api/v4/projects/${pid}/external_status_checks`, { token })).json()) as Record<string, any>).toHaveLength(1);
    const licenses = (await (await callAt("14.10", `/api/v4/projects/${pid}/managed_licenses`, { token })).json()) as { approval_status: string }[];
    expect(licenses.map((l) => l.approval_status)).toEqual(["approved", "blacklisted"]);
  });
});

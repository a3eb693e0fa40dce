import { describe, expect, it } from "vitest";
import { userSubject } from "../../src/services/changes/runner";
import { pendingFor, sweepUntilDone } from "../helpers/changes";
import { call, json, makeUser, makeUserWithToken } from "../helpers/fixtures";
import { seedGrants } from "../helpers/grants";
import { makeApp } from "../oauth/helpers";

/**
 * DESIGN, "Changes that finish": a change of the user row reaches every credential's copy of the
 * user as a change that finishes (src/services/accounts/user-changed.ts), in slices within the
 * request's subrequest budget and then the cron sweep's, never one call per grant in one request.
 */
describe("DESIGN Changes that finish: a user row change reaches the copies of 1,000 grants", () => {
  it("PUT /api/v4/users/:id (name) for a user with 1,000 grants answers 200; after the sweep every token reads the new name and nothing is pending", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const { app } = await makeApp();
    const { tokens } = await seedGrants(user.id, app, 1000);
    for (const token of tokens) expect(((await (await call("/api/v4/user", { token })).json()) as { name: string }).name).toBe(user.name);

    const res = await call(`/api/v4/users/${user.id}`, { token: admin.token, ...json({ name: "Renamed At Scale" }), method: "PUT" });
    expect(res.status).toBe(200);
    await sweepUntilDone(userSubject(user.id));
    expect(await pendingFor(userSubject(user.id))).toBe(0);
    for (const token of tokens) expect(((await (await call("/api/v4/user", { token })).json()) as { name: string }).name).toBe("Renamed At Scale");
  });
});

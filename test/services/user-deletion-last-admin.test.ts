import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { findUserById } from "../../src/db/users";
import { deleteUser } from "../../src/services/accounts/user-delete";
import { GHOST_EMAIL } from "../../src/db/user-deletion";
import { makeUser } from "../helpers/fixtures";

/**
 * GitLab's user deletion refuses to delete the last administrator (docs/operations.md, "Delete a
 * user"). Through the API an administrator never deletes themselves, so another administrator always
 * exists there; the rule is the service's own, for every caller (the admin page, Sudo). This file
 * demotes every other administrator and needs no Ghost User yet, so it runs alone (vitest.config.ts stateSensitiveFiles).
 */
// First: it needs an instance where no deletion has created the Ghost User yet.
describe("GitLab user deletion: the Ghost User takes ghost1 when a person holds ghost", () => {
  it("with a user named ghost, the first deletion creates the Ghost User as ghost1 and leaves the person alone", async () => {
    expect(await env.DB.prepare("SELECT count(*) AS n FROM users WHERE email = ?").bind(GHOST_EMAIL).first<{ n: number }>()).toEqual({ n: 0 });
    const person = await makeUser({ username: "ghost" });
    const admin = await makeUser({ isAdmin: true });
    const doomed = await makeUser();
    await deleteUser(env, { id: admin.id, ip: null }, doomed.id, { hardDelete: false });
    const ghost = await env.DB.prepare("SELECT username, state FROM users WHERE email = ?").bind(GHOST_EMAIL).first();
    expect(ghost).toEqual({ username: "ghost1", state: "blocked" });
    expect((await findUserById(getDb(env.DB), person.id))!.state).toBe("active");
  });
});

describe("GitLab user deletion: the last administrator cannot be deleted", () => {
  it("deleting the only administrator is refused with 403 and changes nothing; with a second administrator it is allowed", async () => {
    const last = await makeUser({ isAdmin: true });
    const caller = await makeUser();
    const demoted = (await env.DB.prepare("UPDATE users SET is_admin = 0 WHERE is_admin = 1 AND id != ? RETURNING id").bind(last.id).all<{ id: number }>()).results.map((r) => r.id);
    try {
      await expect(deleteUser(env, { id: caller.id, ip: null }, last.id, { hardDelete: false })).rejects.toMatchObject({ code: "forbidden", message: "The last administrator cannot be deleted" });
      expect((await findUserById(getDb(env.DB), last.id))!.state).toBe("active");
      await makeUser({ isAdmin: true });
      await deleteUser(env, { id: caller.id, ip: null }, last.id, { hardDelete: false });
      expect(await findUserById(getDb(env.DB), last.id)).toBeNull();
    } finally {
      for (const id of demoted) await env.DB.prepare("UPDATE users SET is_admin = 1 WHERE id = ?").bind(id).run();
    }
  });
});

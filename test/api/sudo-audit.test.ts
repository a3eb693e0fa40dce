import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, makePat, makeUser } from "../helpers/fixtures";

/**
 * docs/security.md, "Sudo": an action taken under Sudo is written with both identities, the user
 * acted as (author_id) and the administrator behind it (impersonator_id; GitLab's
 * `impersonated_by` in the audit events API), whichever action it is.
 */
async function rowOf(action: string, entityId: string | number) {
  return env.DB.prepare("SELECT id, author_id AS author, impersonator_id AS impersonator FROM audit_events WHERE action = ? AND entity_id = ? ORDER BY id DESC LIMIT 1")
    .bind(action, String(entityId))
    .first<{ id: number; author: number; impersonator: number | null }>();
}

describe("audit rows of actions under Sudo name the administrator too (GitLab REST API, Sudo)", () => {
  it("PAT creation, application creation, block and PAT revocation: the row's author is the user acted as, its impersonator the administrator; GET /api/v4/audit_events shows both", async () => {
    const admin = await makeUser({ isAdmin: true });
    const token = await makePat(admin.id, ["api", "sudo"]);
    // Admin-only actions need an administrator to act as; a PAT revocation is any user's own.
    const otherAdmin = await makeUser({ isAdmin: true });
    const bob = await makeUser();
    const carol = await makeUser();
    const as = (who: { username: string }, body?: unknown): RequestInit & { token: string } => ({
      token,
      method: "POST",
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headers: { Sudo: who.username, "Content-Type": "application/json" },
    });
    const expires = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);

    const pat = await call(`/api/v4/users/${bob.id}/personal_access_tokens`, as(otherAdmin, { name: "made under sudo", scopes: ["read_api"], expires_at: expires }));
    expect(pat.status).toBe(201);
    const patId = ((await pat.json()) as { id: number }).id;
    const app = await call("/api/v4/applications", as(otherAdmin, { name: "sudo app", redirect_uri: "https://app.example/cb", scopes: "read_user" }));
    expect(app.status).toBe(201);
    const appId = ((await app.json()) as { id: number }).id;
    expect((await call(`/api/v4/users/${carol.id}/block`, as(otherAdmin))).status).toBe(201);
    const bobsOwn = await makePat(bob.id, ["api"]);
    const bobsOwnId = (await env.DB.prepare("SELECT id FROM personal_access_tokens WHERE user_id = ? ORDER BY id DESC LIMIT 1").bind(bob.id).first<{ id: number }>())!.id;
    expect(bobsOwn).toBeTruthy();
    expect((await call(`/api/v4/personal_access_tokens/${bobsOwnId}`, { ...as(bob), method: "DELETE" })).status).toBe(204);

    const rows = {
      personal_access_token_created: [await rowOf("personal_access_token_created", patId), otherAdmin.id],
      application_created: [await rowOf("application_created", appId), otherAdmin.id],
      user_blocked: [await rowOf("user_blocked", carol.id), otherAdmin.id],
      personal_access_token_revoked: [await rowOf("personal_access_token_revoked", bobsOwnId), bob.id],
    } as const;
    for (const [action, [row, actedAs]] of Object.entries(rows)) {
      expect(row, action).toMatchObject({ author: actedAs, impersonator: admin.id });
      // The administrator reads the row back (without Sudo) through GitLab's audit events API.
      const shown = await call(`/api/v4/audit_events/${row!.id}`, { token });
      expect(shown.status).toBe(200);
      const event = (await shown.json()) as { author_id: number; event_name: string; details: Record<string, unknown> };
      expect(event.event_name).toBe(action);
      expect(event.author_id).toBe(actedAs);
      expect(event.details).toMatchObject({ impersonated_by_id: admin.id, impersonated_by: admin.name, impersonated_by_username: admin.username });
    }
    // The block's token revocations name both as well.
    const revocations = await env.DB.prepare("SELECT author_id AS author, impersonator_id AS impersonator FROM audit_events WHERE action = 'token_revoked' AND details LIKE ?")
      .bind(`%"user_id":${carol.id}%`)
      .all<{ author: number; impersonator: number }>();
    for (const r of revocations.results) expect(r).toEqual({ author: otherAdmin.id, impersonator: admin.id });
  });

  it("without Sudo the row names the token's own user and no impersonator (and the API shows none)", async () => {
    const admin = await makeUser({ isAdmin: true });
    const token = await makePat(admin.id, ["api"]);
    const carol = await makeUser();
    expect((await call(`/api/v4/users/${carol.id}/block`, { token, method: "POST" })).status).toBe(201);
    const row = await rowOf("user_blocked", carol.id);
    expect(row).toMatchObject({ author: admin.id, impersonator: null });
    const event = (await (await call(`/api/v4/audit_events/${row!.id}`, { token })).json()) as { details: Record<string, unknown> };
    expect(event.details).not.toHaveProperty("impersonated_by");
  });
});

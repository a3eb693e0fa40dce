import { describe, expect, it } from "vitest";
import { call, makeUser, makeUserWithToken } from "../helpers/fixtures";

/** Issue 12, "Account controls": GET /api/v4/audit_events, GitLab's instance audit events API. */
interface AuditEvent {
  id: number;
  author_id: number;
  entity_id: number | string;
  entity_type: string;
  event_name: string;
  details: Record<string, unknown>;
  created_at: string;
}

async function adminWithBlockedUser() {
  const { user: admin, token } = await makeUserWithToken({ isAdmin: true });
  const target = await makeUser();
  const started = new Date(Date.now() - 1000).toISOString();
  expect((await call(`/api/v4/users/${target.id}/block`, { method: "POST", token })).status).toBe(201);
  return { admin, token, target, started };
}

describe("GET /api/v4/audit_events (GitLab's instance audit events)", () => {
  it("lists events in GitLab's shape, filtered by entity_type and entity_id", async () => {
    const { admin, token, target } = await adminWithBlockedUser();
    const res = await call(`/api/v4/audit_events?entity_type=User&entity_id=${target.id}`, { token });
    expect(res.status).toBe(200);
    const events = (await res.json()) as AuditEvent[];
    const blocked = events.find((e) => e.event_name === "user_blocked");
    expect(blocked).toMatchObject({ author_id: admin.id, entity_id: target.id, entity_type: "User" });
    expect(blocked!.details).toMatchObject({ author_name: admin.name, target_id: String(target.id), target_type: "User" });
    expect(blocked!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(events.every((e) => e.entity_type === "User" && e.entity_id === target.id)).toBe(true);
    expect(res.headers.get("X-Total")).toBe(String(events.length));
  });

  it("filters by created_after and created_before", async () => {
    const { token, target, started } = await adminWithBlockedUser();
    const after = (await (await call(`/api/v4/audit_events?entity_type=User&entity_id=${target.id}&created_after=${started}`, { token })).json()) as AuditEvent[];
    expect(after.map((e) => e.event_name)).toContain("user_blocked");
    const before = (await (await call(`/api/v4/audit_events?entity_type=User&entity_id=${target.id}&created_before=${started}`, { token })).json()) as AuditEvent[];
    expect(before).toEqual([]);
  });

  it("paginates with GitLab's headers, newest first", async () => {
    const { token } = await adminWithBlockedUser();
    const res = await call("/api/v4/audit_events?per_page=2&page=1", { token });
    const events = (await res.json()) as AuditEvent[];
    expect(events).toHaveLength(2);
    expect(res.headers.get("X-Per-Page")).toBe("2");
    expect(res.headers.get("X-Next-Page")).toBe("2");
    expect(Date.parse(events[0].created_at)).toBeGreaterThanOrEqual(Date.parse(events[1].created_at));
  });

  it("shows one event by id, and 404 for an unknown one", async () => {
    const { token } = await adminWithBlockedUser();
    const [first] = (await (await call("/api/v4/audit_events?per_page=1", { token })).json()) as AuditEvent[];
    const one = await call(`/api/v4/audit_events/${first.id}`, { token });
    expect(await one.json()).toEqual(first);
    const missing = await call("/api/v4/audit_events/99999999", { token });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ message: "404 Audit Event Not Found" });
  });

  it("refuses bad filters with 400 in GitLab's form and non-administrators with 403", async () => {
    const { token } = await adminWithBlockedUser();
    const badDate = await call("/api/v4/audit_events?created_after=yesterday", { token });
    expect(badDate.status).toBe(400);
    expect(await badDate.json()).toEqual({ error: "created_after is invalid" });
    const badType = await call("/api/v4/audit_events?entity_type=Spaceship", { token });
    expect(badType.status).toBe(400);
    expect(await badType.json()).toEqual({ error: "entity_type does not have a valid value" });
    const { token: plain } = await makeUserWithToken();
    expect((await call("/api/v4/audit_events", { token: plain })).status).toBe(403);
    expect((await call("/api/v4/audit_events")).status).toBe(401);
  });

  it("never carries a token, secret or password (DESIGN, convention 6)", async () => {
    const { token } = await adminWithBlockedUser();
    const body = await (await call("/api/v4/audit_events?per_page=100", { token })).text();
    expect(body).not.toMatch(/glpat-|gloas-|password_hash|pbkdf2/);
  });
});

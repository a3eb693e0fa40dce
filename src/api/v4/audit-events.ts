import { Hono } from "hono";
import { z } from "zod";
import { listAuditEvents, type AuditEventRow } from "../../db/audit";
import { getDb } from "../../db/client";
import type { AppEnv } from "../../env";
import { READ_API, requireAdmin, requireAuth } from "./auth";
import { invalidParam, notFound } from "./errors";
import { iso } from "./load";
import { cursorAfter, keysetUnavailable, parsePage, setKeysetNext, setPaginationHeaders } from "./pagination";
import { encodeCursor } from "../../db/listing";
import { idParam } from "./params";
import { validate } from "./validate";

/**
 * GitLab's instance audit events API (administrators): GET /audit_events and /audit_events/:id,
 * filtered by created_after, created_before, entity_type and entity_id, offset-paginated.
 * Entity types are shown with GitLab's class names; the table stores our own snake_case names.
 */
const auditEventsApi = new Hono<AppEnv>();

const ENTITY_TYPES: Record<string, string> = {
  user: "User",
  personal_access_token: "PersonalAccessToken",
  oauth_application: "Doorkeeper::Application",
  oauth_token_family: "Doorkeeper::AccessGrant",
  // Rows of the namespace migration's collision report (docs/security.md "Namespaces").
  group: "Group",
  project: "Project",
};
const STORED_TYPE = Object.fromEntries(Object.entries(ENTITY_TYPES).map(([stored, shown]) => [shown, stored]));

const dateTime = z.string().max(64).transform((s, ctx) => {
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) {
    ctx.addIssue({ code: "custom", message: "is invalid" });
    return z.NEVER;
  }
  return ms;
});

const Query = z.object({
  created_after: dateTime.optional(),
  created_before: dateTime.optional(),
  entity_type: z.string().max(100).optional(),
  entity_id: z.string().max(40).optional(),
  page: z.string().optional(),
  per_page: z.string().optional(),
  // GitLab's keyset of audit events: order_by=id, sort=desc only (Gitlab::Pagination::CursorBasedKeyset).
  pagination: z.enum(["offset", "keyset"]).optional(),
  order_by: z.string().max(40).optional(),
  sort: z.string().max(10).optional(),
  cursor: z.string().max(2000).optional(),
});

type Person = { username: string; name: string } | null;

function entity(e: AuditEventRow, author: Person, impersonator: Person) {
  let details: Record<string, unknown> = {};
  try {
    details = JSON.parse(e.details) as Record<string, unknown>;
  } catch {
    // A row written by hand; show it without details rather than fail the listing.
  }
  const entityType = ENTITY_TYPES[e.entityType] ?? e.entityType;
  return {
    id: e.id,
    author_id: e.authorId ?? -1,
    entity_id: /^\d+$/.test(e.entityId) ? Number(e.entityId) : e.entityId,
    entity_type: entityType,
    event_name: e.action,
    details: {
      ...details,
      custom_message: e.action.replace(/_/g, " "),
      author_name: author?.name ?? "An unauthenticated user",
      author_username: author?.username ?? null,
      target_id: e.entityId,
      target_type: entityType,
      ip_address: e.ipAddress,
      // Under Sudo the author is the user acted as; GitLab names the administrator behind an
      // impersonated action `impersonated_by`.
      ...(e.impersonatorId !== null
        ? { impersonated_by: impersonator?.name ?? null, impersonated_by_id: e.impersonatorId, impersonated_by_username: impersonator?.username ?? null }
        : {}),
    },
    created_at: iso(e.createdAt),
  };
}

auditEventsApi.get("/audit_events", requireAuth(READ_API), requireAdmin, validate("query", Query), async (c) => {
  const q = c.req.valid("query");
  let entityType: string | undefined;
  if (q.entity_type !== undefined) {
    entityType = STORED_TYPE[q.entity_type];
    if (!entityType) throw invalidParam("entity_type", "does not have a valid value");
  }
  const page = parsePage(c);
  const keyset = q.pagination === "keyset";
  if (keyset && ((q.order_by ?? "id") !== "id" || (q.sort ?? "desc") !== "desc")) throw keysetUnavailable();
  const { rows, total, hasNext } = await listAuditEvents(getDb(c.env.DB), {
    offset: page.offset,
    limit: page.perPage,
    createdAfter: q.created_after,
    createdBefore: q.created_before,
    entityType,
    entityId: q.entity_id,
    keyset: keyset ? { beforeId: q.cursor === undefined ? undefined : cursorAfter(q.cursor, "id").id } : undefined,
  });
  if (keyset) {
    const last = rows[rows.length - 1];
    setKeysetNext(c, page.perPage, hasNext && last ? { cursor: encodeCursor({ id: String(last.event.id) }) } : null);
  } else {
    setPaginationHeaders(c, page, total, hasNext);
  }
  return c.json(rows.map((r) => entity(r.event, r.author, r.impersonator)));
});

auditEventsApi.get("/audit_events/:id", requireAuth(READ_API), requireAdmin, async (c) => {
  const id = idParam.safeParse(c.req.param("id"));
  if (!id.success) throw invalidParam("id");
  const { rows } = await listAuditEvents(getDb(c.env.DB), { offset: 0, limit: 1, id: id.data });
  if (!rows[0]) throw notFound("Audit Event Not Found");
  return c.json(entity(rows[0].event, rows[0].author, rows[0].impersonator));
});

export default auditEventsApi;

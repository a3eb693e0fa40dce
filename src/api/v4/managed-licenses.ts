import { Hono, type Context } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import {
  createManagedLicense,
  deleteManagedLicense,
  findManagedLicense,
  listManagedLicenses,
  updateManagedLicense,
  type ManagedLicenseRow,
} from "../../db/licenses";
import { approvalStatusName, parseApprovalStatus, usesOldNames, type ApprovalStatus } from "../../domain/license-policy";
import type { AppEnv } from "../../env";
import { gate } from "../../http/gate";
import { READ_API, requireAuth, WRITE_API } from "./auth";
import { conflict, notFound } from "./errors";
import { loadProject } from "./load";
import { parseParams, readParams } from "./validate";
import { parsePage, setPaginationHeaders } from "./pagination";

/**
 * Managed licenses (license policies) API (GitLab). approval_status allowed/denied; approved and
 * blacklisted accepted and answered below 15.0 (deprecated), refused from 15.0
 * (managed-licenses-approval-names).
 */
const licenses = new Hono<AppEnv>();
const ENTRY = "managed-licenses-approval-names";

function render(c: Context<AppEnv>, l: ManagedLicenseRow) {
  const g = gate(c);
  if (usesOldNames(g.version)) g.markDeprecated(ENTRY);
  return { id: l.id, name: l.name, approval_status: approvalStatusName(l.approvalStatus as ApprovalStatus, g.version) };
}

function approval(c: Context<AppEnv>, value: string): ApprovalStatus {
  const parsed = parseApprovalStatus(value, gate(c).version);
  if (value !== parsed) gate(c).markDeprecated(ENTRY);
  return parsed;
}

licenses.get("/projects/:id/managed_licenses", requireAuth(READ_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"));
  const page = parsePage(c);
  const { rows, total } = await listManagedLicenses(getDb(c.env.DB), project.id, { limit: page.perPage, offset: page.offset });
  setPaginationHeaders(c, page, total);
  return c.json(rows.map((l) => render(c, l)));
});

async function loadLicense(c: Context<AppEnv>, ability: "read_project" | "admin_project") {
  const { project } = await loadProject(c, c.req.param("id")!, ability);
  const license = await findManagedLicense(getDb(c.env.DB), project.id, c.req.param("managed_license_id")!);
  if (!license) throw notFound();
  return license;
}

licenses.get("/projects/:id/managed_licenses/:managed_license_id", requireAuth(READ_API), async (c) => {
  return c.json(render(c, await loadLicense(c, "read_project")));
});

licenses.post("/projects/:id/managed_licenses", requireAuth(WRITE_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"), "admin_project");
  const input = parseParams(z.object({ name: z.string().min(1).max(255), approval_status: z.string().min(1) }), await readParams(c));
  const status = approval(c, input.approval_status);
  const row = await createManagedLicense(getDb(c.env.DB), project.id, input.name, status);
  if (!row) throw conflict("Managed license already exists");
  return c.json(render(c, row), 201);
});

licenses.patch("/projects/:id/managed_licenses/:managed_license_id", requireAuth(WRITE_API), async (c) => {
  const license = await loadLicense(c, "admin_project");
  const input = parseParams(z.object({ approval_status: z.string().min(1) }), await readParams(c));
  const row = await updateManagedLicense(getDb(c.env.DB), license.id, approval(c, input.approval_status));
  return c.json(render(c, row));
});

licenses.delete("/projects/:id/managed_licenses/:managed_license_id", requireAuth(WRITE_API), async (c) => {
  const license = await loadLicense(c, "admin_project");
  await deleteManagedLicense(getDb(c.env.DB), license.id);
  return c.body(null, 204);
});

export default licenses;

import { Hono, type Context } from "hono";
import { z } from "zod";
import { getConfig } from "../../config";
import { getDb } from "../../db/client";
import {
  deletePackage,
  findPackage,
  findPackageFile,
  findPipeline,
  listPackages,
  packageFilesOf,
  packagePipelinesPage,
  pipelinesOfPackages,
  type PackageOrder,
  type PackageRow,
  type PipelineRow,
} from "../../db/packages";
import type { ProjectRow } from "../../db/projects";
import type { AppEnv } from "../../env";
import { gate } from "../../http/gate";
import { READ_API, requireAuth, WRITE_API } from "./auth";
import { ApiError, invalidParam, notFound } from "./errors";
import { iso, loadProject, webUrl } from "./load";
import { parseParams, queryParams } from "./validate";
import { loadPackageProject, requirePackageAuth } from "./package-auth";
import { parsePage, setKeysetLink, setPaginationHeaders } from "./pagination";
import { idParam, intParam } from "./params";
import { whenParamIs } from "../../http/router";
import { pathTail } from "../../http/path-decoding";
import { storeGenericPackageFile } from "../../services/packages";

/** Package registry API (GitLab): generic packages, the package list and its pipelines (spec part b). */
const packagesApp = new Hono<AppEnv>();

const PACKAGE_TYPES = ["generic", "maven", "npm", "conan", "pypi", "composer", "nuget", "helm", "golang", "debian", "rubygems", "terraform_module"] as const;
const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;
const versionPattern = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,254}$/;
const fileNamePattern = /^[A-Za-z0-9._~+-][A-Za-z0-9._~+ -]{0,254}$/;

export function renderPipeline(c: Context, p: PipelineRow, project: ProjectRow) {
  return {
    id: p.id,
    iid: p.iid,
    project_id: p.projectId,
    sha: p.sha,
    ref: p.ref,
    status: p.status,
    source: p.source,
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
    web_url: webUrl(c, `${project.pathWithNamespace}/-/pipelines/${p.id}`),
  };
}

function renderPackage(c: Context<AppEnv>, pkg: PackageRow, project: ProjectRow, pipelines: PipelineRow[] | null) {
  const view: Record<string, unknown> = {
    id: pkg.id,
    name: pkg.name,
    version: pkg.version,
    package_type: pkg.packageType,
    status: pkg.status,
    created_at: iso(pkg.createdAt),
    _links: {
      web_path: `/${project.pathWithNamespace}/-/packages/${pkg.id}`,
      delete_api_path: `${new URL(c.req.url).origin}/api/v4/projects/${project.id}/packages/${pkg.id}`,
    },
  };
  // Removed from the list items in 15.0 (packages-pipelines-field); until then served and deprecated.
  if (pipelines !== null) view.pipelines = pipelines.map((p) => renderPipeline(c, p, project));
  return view;
}


packagesApp.put("/projects/:id/packages/generic/:name/:version/:file", requirePackageAuth("write"), async (c) => {
  const project = await loadPackageProject(c, "write");
  const { name, version } = c.req.param();
  const file = c.req.param("file");
  if (!namePattern.test(name)) throw invalidParam("package_name");
  if (!versionPattern.test(version)) throw invalidParam("package_version");
  if (!fileNamePattern.test(file)) throw invalidParam("file_name");
  const q = parseParams(
    z.object({
      status: z.enum(["default", "hidden"]).default("default"),
      select: z.enum(["package_file"]).optional(),
      pipeline_id: idParam.optional(),
    }), queryParams(c));
  const db = getDb(c.env.DB);
  // An optional pipeline reference (GitLab takes it from the CI job token; we accept its id).
  let pipelineId: number | null = null;
  if (q.pipeline_id !== undefined) {
    if (!(await findPipeline(db, project.id, q.pipeline_id))) throw notFound("Pipeline Not Found");
    pipelineId = q.pipeline_id;
  }
  const limits = getConfig(c.env).upload;
  const tooLarge = () => new ApiError(413, { message: "413 Request Entity Too Large" });
  const declaredHeader = c.req.header("content-length");
  const declared = declaredHeader !== undefined && /^\d{1,16}$/.test(declaredHeader) ? Number(declaredHeader) : null;
  if (declared !== null && declared > limits.maxFileBytes) throw tooLarge();
  // The file is the raw body (curl --upload-file, GitLab's documented way), streamed into R2 with
  // its SHA-256 as it arrives; some clients send a multipart field "file" instead, which the
  // runtime parses before we see it, so that form is held to the same limit but not streamed.
  let body: ReadableStream<Uint8Array> | null = c.req.raw.body;
  let size: number | null = declared;
  if ((c.req.header("content-type") ?? "").startsWith("multipart/form-data")) {
    const form = await c.req.parseBody();
    const part = form.file;
    if (!(part instanceof File)) throw invalidParam("file", "is missing");
    body = part.stream();
    size = part.size;
  }
  // Too large: 413; ended early: 400 (renderApiError, from the error family's codes).
  const { pkg, file: pf } = await storeGenericPackageFile(c.env, { project, name, version, fileName: file, status: q.status, pipelineId, body, size });
  if (q.select === "package_file") {
    return c.json({ id: pf.id, package_id: pkg.id, file_name: pf.fileName, size: pf.size, file_sha256: pf.fileSha256, created_at: iso(pf.createdAt) }, 201);
  }
  return c.json({ message: "201 Created" }, 201);
});

// The download sits under the tail of `:package_id`: RegExpRouter cannot hold the literal `generic`
// beside the numeric package routes (src/http/router.ts); the tail's segments are decoded once here.
packagesApp.get(
  "/projects/:id/packages/:package_id/*",
  whenParamIs<AppEnv>("package_id", "generic", requirePackageAuth("read"), async (c, next) => {
  const tail = pathTail(c.req.path, 3, 6);
  if (!tail) return next();
  const [name, version, file] = tail;
  const project = await loadPackageProject(c, "read");
  const found = await findPackageFile(getDb(c.env.DB), project.id, name, version, file);
  if (!found) throw notFound();
  const object = await c.env.FILES.get(found.file.r2Key);
  if (!object) throw notFound();
  return new Response(object.body, {
    headers: {
      "Content-Type": "application/octet-stream",
      "Content-Length": String(found.file.size),
      "Content-Disposition": `attachment; filename="${found.file.fileName.replace(/"/g, "")}"`,
    },
  });
  }),
);

const ListPackages = z.object({
  order_by: z.enum(["created_at", "name", "version", "type"]).default("created_at"),
  sort: z.enum(["asc", "desc"]).default("asc"),
  package_type: z.enum(PACKAGE_TYPES).optional(),
  package_name: z.string().optional(),
  status: z.enum(["default", "hidden"]).optional(),
});

packagesApp.get("/projects/:id/packages", requireAuth(READ_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"), "read_package");
  const q = parseParams(ListPackages, queryParams(c));
  const page = parsePage(c);
  const db = getDb(c.env.DB);
  const filter = { packageType: q.package_type, packageName: q.package_name, status: q.status };
  const { rows, total, hasNext } = await listPackages(db, project.id, { filter, orderBy: q.order_by as PackageOrder, sort: q.sort, limit: page.perPage, offset: page.offset });
  const g = gate(c);
  const withPipelines = !g.isRemoved("packages-pipelines-field");
  const pipelines = withPipelines ? await pipelinesOfPackages(db, rows.map((r) => r.id)) : null;
  if (withPipelines) g.markDeprecated("packages-pipelines-field");
  setPaginationHeaders(c, page, total, hasNext);
  return c.json(rows.map((r) => renderPackage(c, r, project, pipelines ? (pipelines.get(r.id) ?? []) : null)));
});

async function loadPackage(c: Context<AppEnv>, ability: "read_package" | "destroy_package" = "read_package") {
  const { project, access } = await loadProject(c, c.req.param("id")!, ability);
  access.check("read_package");
  const id = parseParams(idParam, c.req.param("package_id"));
  const pkg = await findPackage(getDb(c.env.DB), project.id, id);
  if (!pkg) throw notFound();
  return { project, pkg };
}

packagesApp.get("/projects/:id/packages/:package_id", requireAuth(READ_API), async (c) => {
  const { project, pkg } = await loadPackage(c);
  const g = gate(c);
  // The single package keeps the list item's shape, gated the same way.
  let pipelines: PipelineRow[] | null = null;
  if (!g.isRemoved("packages-pipelines-field")) {
    pipelines = (await pipelinesOfPackages(getDb(c.env.DB), [pkg.id])).get(pkg.id) ?? [];
    g.markDeprecated("packages-pipelines-field");
  }
  return c.json(renderPackage(c, pkg, project, pipelines));
});

packagesApp.get("/projects/:id/packages/:package_id/package_files", requireAuth(READ_API), async (c) => {
  const { pkg } = await loadPackage(c);
  const files = await packageFilesOf(getDb(c.env.DB), pkg.id);
  return c.json(
    files.map((f) => ({ id: f.id, package_id: pkg.id, file_name: f.fileName, size: f.size, file_sha256: f.fileSha256, pipelines: [], created_at: iso(f.createdAt) })),
  );
});

/** The replacement of the removed list attribute: keyset pages (id_after) of one package's pipelines. */
packagesApp.get("/projects/:id/packages/:package_id/pipelines", requireAuth(READ_API), async (c) => {
  const { project, pkg } = await loadPackage(c);
  const { id_after } = parseParams(z.object({ id_after: intParam(0).default(0) }), queryParams(c));
  const page = parsePage(c);
  const { rows, hasNext } = await packagePipelinesPage(getDb(c.env.DB), pkg.id, id_after, page.perPage);
  setKeysetLink(c, page.perPage, hasNext ? rows[rows.length - 1].id : null);
  return c.json(rows.map((p) => renderPipeline(c, p, project)));
});

packagesApp.delete("/projects/:id/packages/:package_id", requireAuth(WRITE_API), async (c) => {
  const { pkg } = await loadPackage(c, "destroy_package");
  const keys = await deletePackage(getDb(c.env.DB), pkg.id);
  if (keys.length) await c.env.FILES.delete(keys);
  return c.body(null, 204);
});

export default packagesApp;

import { Hono, type Context } from "hono";
import type { AppEnv } from "../env";
import { getConfig } from "../config";
import { getDb } from "../db/client";
import { findLinkedBlob, linkBlob, unlinkBlob } from "../db/registry-content";
import { bearerClaims, requireAccess, type RepositoryAccess } from "./access";
import { decodePathSegmentOrThrow } from "../http/path-decoding";
import { RegistryError, renderRegistryError } from "./errors";
import { deleteImage, getManifest, listReferrers, listTagNames, pushManifest } from "./images";
import { DIGEST, MEDIA_TYPE, MEDIA_TYPES } from "./manifest";
import { ifNoneMatchHits } from "../http/conditional";
import { grantedActions } from "../credentials/registry-token";
import {
  appendChunk,
  cancelUpload,
  completeUpload,
  parseDigest,
  startUpload,
  uploadMonolithic,
  uploadStatus,
  type BodyInput,
} from "./uploads";

/**
 * The OCI distribution API v1.1 at /v2/ (DESIGN, Registries). Names contain slashes, so one
 * catch-all route dispatches on the path's suffix; each handler parses, asks src/registry/ and
 * renders. Errors are rendered in one place (renderRegistryError).
 */
const v2 = new Hono<AppEnv>();
v2.onError(renderRegistryError);
v2.use(async (c, next) => {
  await next();
  c.header("Docker-Distribution-API-Version", "registry/2.0");
});

type Handler = (c: Context<AppEnv>, name: string, arg: string) => Promise<Response>;
interface Route {
  pattern: RegExp;
  methods: Partial<Record<string, Handler>>;
}

const DEFAULT_TAGS_PAGE = 1000;

function bodyOf(c: Context<AppEnv>): BodyInput {
  const header = c.req.header("content-length");
  const length = header !== undefined && /^\d+$/.test(header) ? Number(header) : null;
  return { stream: c.req.raw.body, length };
}

const uploadUrl = (name: string, id: string) => `/v2/${name}/blobs/uploads/${id}`;
const rangeOf = (offset: number) => `0-${Math.max(offset - 1, 0)}`;

function uploadAccepted(c: Context<AppEnv>, name: string, id: string, offset: number, status: 202 | 204 = 202): Response {
  c.header("Location", uploadUrl(name, id));
  c.header("Range", rangeOf(offset));
  c.header("Docker-Upload-UUID", id);
  c.header("Content-Length", "0");
  return c.body(null, status);
}

function blobCreated(c: Context<AppEnv>, name: string, digest: string): Response {
  c.header("Location", `/v2/${name}/blobs/${digest}`);
  c.header("Docker-Content-Digest", digest);
  c.header("Content-Length", "0");
  return c.body(null, 201);
}

const target = (a: RepositoryAccess) => ({ repositoryPath: a.path, projectId: a.projectId });
const image = (a: RepositoryAccess) => ({ projectId: a.projectId, image: a.image, path: a.path });

async function getBlob(c: Context<AppEnv>, name: string, rawDigest: string, head: boolean): Promise<Response> {
  const access = await requireAccess(c, name, "pull");
  const digest = parseDigest(rawDigest);
  const blob = await findLinkedBlob(getDb(c.env.DB), access.path, digest);
  if (!blob) throw new RegistryError("BLOB_UNKNOWN", "blob unknown to registry", { detail: { digest } });
  const headers: Record<string, string> = { "Docker-Content-Digest": digest, "Content-Type": "application/octet-stream", "Accept-Ranges": "bytes", ETag: `"${digest}"` };
  if (head) return new Response(null, { status: 200, headers: { ...headers, "Content-Length": String(blob.size) } });
  const range = /^bytes=(\d+)-(\d*)$/.exec(c.req.header("range") ?? "");
  if (range) {
    const start = Number(range[1]);
    const end = range[2] ? Math.min(Number(range[2]), blob.size - 1) : blob.size - 1;
    if (start > end) throw new RegistryError("RANGE_INVALID", "the range is not satisfiable", { status: 416, headers: { "Content-Range": `bytes */${blob.size}` } });
    const part = await c.env.FILES.get(blob.r2Key, { range: { offset: start, length: end - start + 1 } });
    if (!part) throw new RegistryError("BLOB_UNKNOWN", "blob unknown to registry", { detail: { digest } });
    return new Response(part.body, { status: 206, headers: { ...headers, "Content-Length": String(end - start + 1), "Content-Range": `bytes ${start}-${end}/${blob.size}` } });
  }
  const object = await c.env.FILES.get(blob.r2Key);
  if (!object) throw new RegistryError("BLOB_UNKNOWN", "blob unknown to registry", { detail: { digest } });
  return new Response(object.body, { status: 200, headers: { ...headers, "Content-Length": String(blob.size) } });
}

async function startBlobUpload(c: Context<AppEnv>, name: string): Promise<Response> {
  const mount = c.req.query("mount");
  const from = c.req.query("from");
  const access = await requireAccess(c, name, "push", mount && from ? from : null);
  if (mount && from) {
    // Cross-repository mount: only from a repository the same token may pull (else a plain upload).
    const digest = parseDigest(mount);
    const db = getDb(c.env.DB);
    if (grantedActions(access.claims, from).includes("pull") && (await findLinkedBlob(db, from, digest)) && (await linkBlob(db, access.path, digest))) {
      return blobCreated(c, name, digest);
    }
  }
  const digest = c.req.query("digest");
  if (digest !== undefined) {
    await uploadMonolithic(c.env, target(access), parseDigest(digest), bodyOf(c));
    return blobCreated(c, name, digest);
  }
  const row = await startUpload(c.env, target(access));
  return uploadAccepted(c, name, row.id, 0);
}

const UPLOAD_ID = /^[0-9a-f-]{36}$/;
function uploadId(raw: string): string {
  if (!UPLOAD_ID.test(raw)) throw new RegistryError("BLOB_UPLOAD_UNKNOWN", "blob upload unknown to registry");
  return raw;
}

const routes: Route[] = [
  {
    pattern: /^\/v2\/(.+)\/blobs\/uploads\/?$/,
    methods: { POST: (c, name) => startBlobUpload(c, name) },
  },
  {
    pattern: /^\/v2\/(.+)\/blobs\/uploads\/([^/]+)$/,
    methods: {
      GET: async (c, name, id) => {
        const access = await requireAccess(c, name, "push");
        const row = await uploadStatus(c.env, target(access), uploadId(id));
        return uploadAccepted(c, name, row.id, row.offset, 204);
      },
      PATCH: async (c, name, id) => {
        const access = await requireAccess(c, name, "push");
        const row = await appendChunk(c.env, target(access), uploadId(id), bodyOf(c), c.req.header("content-range") ?? null);
        return uploadAccepted(c, name, row.id, row.offset);
      },
      PUT: async (c, name, id) => {
        const access = await requireAccess(c, name, "push");
        const digest = parseDigest(c.req.query("digest"));
        await completeUpload(c.env, target(access), uploadId(id), digest, bodyOf(c), c.req.header("content-range") ?? null);
        return blobCreated(c, name, digest);
      },
      DELETE: async (c, name, id) => {
        const access = await requireAccess(c, name, "push");
        await cancelUpload(c.env, target(access), uploadId(id));
        return c.body(null, 204);
      },
    },
  },
  {
    pattern: /^\/v2\/(.+)\/blobs\/([^/]+)$/,
    methods: {
      GET: (c, name, digest) => getBlob(c, name, digest, false),
      HEAD: (c, name, digest) => getBlob(c, name, digest, true),
      DELETE: async (c, name, raw) => {
        const access = await requireAccess(c, name, "delete");
        const digest = parseDigest(raw);
        if (!(await unlinkBlob(getDb(c.env.DB), access.path, digest))) throw new RegistryError("BLOB_UNKNOWN", "blob unknown to registry", { detail: { digest } });
        return c.body(null, 202);
      },
    },
  },
  {
    pattern: /^\/v2\/(.+)\/manifests\/([^/]+)$/,
    methods: {
      GET: (c, name, ref) => serveManifest(c, name, ref, false),
      HEAD: (c, name, ref) => serveManifest(c, name, ref, true),
      PUT: async (c, name, ref) => {
        const access = await requireAccess(c, name, "push");
        const max = getConfig(c.env).registry.maxManifestBytes;
        const body = bodyOf(c);
        if (body.length !== null && body.length > max) throw new RegistryError("SIZE_INVALID", `a manifest may be at most ${max} bytes`, { status: 413 });
        const bytes = new Uint8Array(await c.req.arrayBuffer());
        if (bytes.byteLength > max) throw new RegistryError("SIZE_INVALID", `a manifest may be at most ${max} bytes`, { status: 413 });
        const { digest, subject } = await pushManifest(c.env, image(access), ref, bytes, c.req.header("content-type") ?? null);
        c.header("Location", `/v2/${name}/manifests/${digest}`);
        c.header("Docker-Content-Digest", digest);
        // OCI v1.1: the registry processed `subject` (the referrers API lists it).
        if (subject) c.header("OCI-Subject", subject);
        c.header("Content-Length", "0");
        return c.body(null, 201);
      },
      DELETE: async (c, name, ref) => {
        const access = await requireAccess(c, name, "delete");
        await deleteImage(c.env, image(access), ref);
        return c.body(null, 202);
      },
    },
  },
  {
    pattern: /^\/v2\/(.+)\/referrers\/([^/]+)$/,
    methods: { GET: (c, name, digest) => serveReferrers(c, name, digest) },
  },
  {
    pattern: /^\/v2\/(.+)\/tags\/list()$/,
    methods: {
      GET: async (c, name) => {
        const access = await requireAccess(c, name, "pull");
        const rawN = c.req.query("n");
        if (rawN !== undefined && !/^\d{1,6}$/.test(rawN)) throw new RegistryError("UNSUPPORTED", "n must be a non-negative integer", { status: 400 });
        const n = rawN === undefined ? DEFAULT_TAGS_PAGE : Math.min(Number(rawN), DEFAULT_TAGS_PAGE);
        const last = c.req.query("last") ?? null;
        const page = await listTagNames(c.env, image(access), n, last);
        if (page.more && page.tags.length) {
          c.header("Link", `</v2/${name}/tags/list?n=${n}&last=${encodeURIComponent(page.tags[page.tags.length - 1])}>; rel="next"`);
        }
        return c.json({ name, tags: page.tags });
      },
    },
  },
];

/** GET /v2/<name>/referrers/<digest> (distribution spec v1.1, end-12a/12b). */
async function serveReferrers(c: Context<AppEnv>, name: string, raw: string): Promise<Response> {
  const access = await requireAccess(c, name, "pull");
  const digest = parseDigest(raw);
  const artifactType = c.req.query("artifactType") ?? null;
  if (artifactType !== null && !MEDIA_TYPE.test(artifactType)) throw new RegistryError("UNSUPPORTED", "artifactType must be a media type", { status: 400 });
  const last = c.req.query("last") ?? null;
  if (last !== null) parseDigest(last);
  const page = await listReferrers(c.env, image(access), digest, artifactType, last);
  if (artifactType !== null) c.header("OCI-Filters-Applied", "artifactType");
  if (page.next) {
    const q = new URLSearchParams({ ...(artifactType !== null ? { artifactType } : {}), last: page.next });
    c.header("Link", `</v2/${name}/referrers/${digest}?${q}>; rel="next"`);
  }
  c.header("Content-Type", MEDIA_TYPES.ociIndex);
  return c.body(JSON.stringify(page.index), 200);
}

/**
 * GET and HEAD of a manifest. By digest it is immutable (docs/registries.md, "Manifests by digest"):
 * a strong ETag equal to the digest, `Cache-Control: ... immutable`, `public` only when an
 * anonymous token was granted pull (the repository is readable by anyone; the token service grants
 * anonymous pull on public projects alone), else `private` so no shared cache keeps it. By tag it
 * may change at any push: the same ETag, but `no-cache` (revalidate). A matching If-None-Match is 304.
 */
const IMMUTABLE_AGE = "max-age=31536000, immutable";
async function serveManifest(c: Context<AppEnv>, name: string, ref: string, head: boolean): Promise<Response> {
  const access = await requireAccess(c, name, "pull");
  const byDigest = DIGEST.test(ref);
  const conditional = c.req.header("if-none-match");
  const m = await getManifest(c.env, image(access), ref, !head && !(byDigest && conditional));
  const etag = `"${m.digest}"`;
  const cacheControl = byDigest ? `${access.claims.sub === "" ? "public" : "private"}, ${IMMUTABLE_AGE}` : "no-cache";
  const headers: Record<string, string> = { "Docker-Content-Digest": m.digest, ETag: etag, "Cache-Control": cacheControl };
  if (ifNoneMatchHits(conditional, etag)) return new Response(null, { status: 304, headers });
  // A conditional GET by digest that missed: the bytes were not read yet.
  const content = head ? null : (m.content ?? (await getManifest(c.env, image(access), ref)).content);
  return new Response(content, { status: 200, headers: { ...headers, "Content-Type": m.mediaType, "Content-Length": String(m.size) } });
}

v2.all("*", async (c) => {
  const path = new URL(c.req.url).pathname;
  // GET /v2/: the API version check; 401 with the challenge until the client holds a token.
  if (path === "/v2/" || path === "/v2") {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") throw new RegistryError("UNSUPPORTED", `${c.req.method} is not supported here`, { status: 405 });
    if (!(await bearerClaims(c))) throw new RegistryError("UNAUTHORIZED", "authentication required");
    return c.json({});
  }
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    const handler = route.methods[c.req.method];
    if (!handler) throw new RegistryError("UNSUPPORTED", `${c.req.method} is not supported here`, { status: 405 });
    // The reference (tag or digest) is decoded once here, by the one path decoder, for every method.
    return handler(c, m[1], m[2] === undefined ? m[2] : decodePathSegmentOrThrow(m[2]));
  }
  throw new RegistryError("NAME_UNKNOWN", "not found", { status: 404 });
});

export default v2;

import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Container registry image repositories of projects; a row appears when the first manifest is pushed. */
export const registryRepositories = sqliteTable(
  "registry_repositories",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    projectId: integer("project_id").notNull(),
    /** "" for the project's root image. */
    name: text("name").notNull(),
    /** path_with_namespace[/name] */
    path: text("path").notNull(),
    createdAt: integer("created_at").notNull(),
    /**
     * The last time a tag was pushed, moved or deleted (GraphQL's updatedAt), and the number of tags
     * (tags_count, tagsCount): both kept by triggers on registry_tags (drizzle/*_registry_tag_triggers.sql),
     * so a listing reads them from this row instead of counting every tag of every repository.
     */
    updatedAt: integer("updated_at").notNull().default(0),
    tagsCount: integer("tags_count").notNull().default(0),
  },
  (t) => [uniqueIndex("registry_repositories_project_name_idx").on(t.projectId, t.name), index("registry_repositories_project_updated_idx").on(t.projectId, t.updatedAt, t.id)],
);

/** A tag names one manifest of its repository; revision is the manifest's config digest (GitLab). */
export const registryTags = sqliteTable(
  "registry_tags",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    repositoryId: integer("repository_id").notNull().references(() => registryRepositories.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    digest: text("digest").notNull(),
    revision: text("revision").notNull(),
    totalSize: integer("total_size").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("registry_tags_repository_name_idx").on(t.repositoryId, t.name), index("registry_tags_repo_idx").on(t.repositoryId)],
);

/**
 * Committed blobs, content-addressed and shared by every repository: the row is the commit point,
 * written only after the digest of the bytes in R2 was verified (nothing half-written is visible).
 */
export const registryBlobs = sqliteTable("registry_blobs", {
  digest: text("digest").primaryKey(),
  size: integer("size").notNull(),
  r2Key: text("r2_key").notNull(),
  createdAt: integer("created_at").notNull(),
  /**
   * A push that relies on this blob (commit, mount, a manifest naming it) holds it until then;
   * collection skips held blobs, so garbage collection never races a push (docs/registries.md).
   */
  heldUntil: integer("held_until").notNull().default(0),
});

/**
 * Which repository may read which blob (pushed to it, mounted into it). Keyed by the repository's
 * name, because blobs are pushed before the manifest that makes the repository appear.
 */
export const registryBlobLinks = sqliteTable(
  "registry_blob_links",
  {
    repositoryPath: text("repository_path").notNull(),
    digest: text("digest").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.repositoryPath, t.digest] }), index("registry_blob_links_digest_idx").on(t.digest)],
);

/** Manifests (image manifests and indexes) of a repository, kept byte for byte. */
export const registryManifests = sqliteTable(
  "registry_manifests",
  {
    repositoryId: integer("repository_id").notNull().references(() => registryRepositories.id, { onDelete: "cascade" }),
    digest: text("digest").notNull(),
    mediaType: text("media_type").notNull(),
    /** The exact bytes as pushed (manifests are UTF-8 JSON). */
    content: text("content").notNull(),
    size: integer("size").notNull(),
    /** The config blob's digest (GitLab's tag revision); "" for an index. */
    configDigest: text("config_digest").notNull(),
    /** Bytes of the config, layers and (for an index) the children's totals. */
    totalSize: integer("total_size").notNull(),
    /** OCI v1.1 `subject`: the manifest this one refers to (the referrers API lists it there). */
    subjectDigest: text("subject_digest"),
    /** The manifest's artifactType, else its config mediaType (as the referrers API reports it). */
    artifactType: text("artifact_type"),
    /** The manifest's annotations as JSON, null when it has none. */
    annotations: text("annotations"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.repositoryId, t.digest] }), index("registry_manifests_subject_idx").on(t.repositoryId, t.subjectDigest, t.digest)],
);

/** What a manifest references: blobs (config, layers) and, for an index, child manifests. */
export const registryManifestRefs = sqliteTable(
  "registry_manifest_refs",
  {
    repositoryId: integer("repository_id").notNull().references(() => registryRepositories.id, { onDelete: "cascade" }),
    manifestDigest: text("manifest_digest").notNull(),
    refDigest: text("ref_digest").notNull(),
    /** blob or manifest */
    kind: text("kind").notNull(),
  },
  (t) => [primaryKey({ columns: [t.repositoryId, t.manifestDigest, t.refDigest] }), index("registry_manifest_refs_ref_idx").on(t.refDigest)],
);

/**
 * Blob upload sessions (POST /v2/<name>/blobs/uploads/). Each PATCH stores its bytes as one chunk
 * object; the final PUT assembles, verifies and commits. Abandoned sessions are swept.
 */
export const registryUploads = sqliteTable(
  "registry_uploads",
  {
    id: text("id").primaryKey(),
    repositoryPath: text("repository_path").notNull(),
    projectId: integer("project_id").notNull(),
    /** Bytes received so far. */
    offset: integer("offset").notNull().default(0),
    /** JSON array of { key, size, sha256 } chunk objects in R2, in order. */
    chunks: text("chunks").notNull().default("[]"),
    /**
     * The lease of the request writing to the session (src/registry/upload-lease.ts): until when it
     * holds it, renewed while bytes arrive, so concurrent chunks are refused, not interleaved, and a
     * holder that died frees the session within seconds.
     */
    busyUntil: integer("busy_until").notNull().default(0),
    /** Which request holds the lease: only it may renew it or record its chunk. */
    leaseHolder: text("lease_holder"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("registry_uploads_updated_idx").on(t.updatedAt)],
);

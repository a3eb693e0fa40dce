import { RegistryError } from "./errors";

/**
 * Manifests the registry accepts (OCI image spec v1.1 and Docker's v2 schema 2): image manifests
 * name a config and layers (blobs); indexes and manifest lists name other manifests. Pure parsing:
 * callers check that every referenced blob or manifest exists in the repository.
 */
export const MEDIA_TYPES = {
  ociManifest: "application/vnd.oci.image.manifest.v1+json",
  ociIndex: "application/vnd.oci.image.index.v1+json",
  dockerManifest: "application/vnd.docker.distribution.manifest.v2+json",
  dockerList: "application/vnd.docker.distribution.manifest.list.v2+json",
} as const;
const IMAGE_TYPES: string[] = [MEDIA_TYPES.ociManifest, MEDIA_TYPES.dockerManifest];
const INDEX_TYPES: string[] = [MEDIA_TYPES.ociIndex, MEDIA_TYPES.dockerList];
export const SUPPORTED_MANIFEST_TYPES = [...IMAGE_TYPES, ...INDEX_TYPES];

/** Layers that live elsewhere (Windows base layers) are not required to be pushed. */
const FOREIGN_LAYER = /\.foreign\./;

export const DIGEST = /^sha256:[a-f0-9]{64}$/;
/** RFC 6838 type/subtype (with optional +suffix and parameters-free), as OCI media types are. */
export const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;
export const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

export interface ParsedManifest {
  mediaType: string;
  kind: "image" | "index";
  /** The config blob's digest ("" for an index). */
  configDigest: string;
  /** Blobs the manifest needs, with their declared sizes. */
  blobs: { digest: string; size: number }[];
  /** Child manifests of an index. */
  manifests: { digest: string; size: number }[];
  /** The manifest this one refers to (OCI v1.1 `subject`): the referrers API lists it there. */
  subject: string | null;
  /** OCI v1.1: the manifest's `artifactType`, else an image manifest's config mediaType. */
  artifactType: string | null;
  /** The manifest's `annotations` (string values only), null when absent. */
  annotations: Record<string, string> | null;
}

interface Descriptor {
  mediaType?: unknown;
  digest?: unknown;
  size?: unknown;
  urls?: unknown;
}

function descriptor(d: unknown, where: string): { digest: string; size: number; mediaType: string } {
  const x = d as Descriptor;
  if (!x || typeof x !== "object") throw new RegistryError("MANIFEST_INVALID", `${where} is not a descriptor`);
  if (typeof x.digest !== "string" || !DIGEST.test(x.digest)) throw new RegistryError("MANIFEST_INVALID", `${where}.digest must be a sha256 digest`);
  if (typeof x.size !== "number" || !Number.isSafeInteger(x.size) || x.size < 0) throw new RegistryError("MANIFEST_INVALID", `${where}.size must be a non-negative integer`);
  return { digest: x.digest, size: x.size, mediaType: typeof x.mediaType === "string" ? x.mediaType : "" };
}

/**
 * `contentType` is the request's Content-Type. The manifest's own mediaType, when present, must
 * agree with it (OCI spec: a mismatch is MANIFEST_INVALID); schema 1 and unknown types are refused.
 */
export function parseManifest(bytes: Uint8Array, contentType: string | null): ParsedManifest {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes));
  } catch {
    throw new RegistryError("MANIFEST_INVALID", "the manifest is not valid UTF-8 JSON");
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw new RegistryError("MANIFEST_INVALID", "the manifest must be a JSON object");
  const declared = typeof doc.mediaType === "string" ? doc.mediaType : null;
  const header = contentType ? contentType.split(";")[0].trim().toLowerCase() : null;
  if (declared && header && declared !== header) throw new RegistryError("MANIFEST_INVALID", `mediaType ${declared} does not match Content-Type ${header}`);
  const mediaType = declared ?? header ?? "";
  if (!SUPPORTED_MANIFEST_TYPES.includes(mediaType)) throw new RegistryError("UNSUPPORTED", `manifest media type "${mediaType}" is not supported`);
  if (doc.schemaVersion !== 2) throw new RegistryError("MANIFEST_INVALID", "schemaVersion must be 2");
  const refers = referrerFields(doc);
  if (INDEX_TYPES.includes(mediaType)) {
    if (!Array.isArray(doc.manifests)) throw new RegistryError("MANIFEST_INVALID", "an index needs a manifests array");
    const manifests = doc.manifests.map((m, i) => descriptor(m, `manifests[${i}]`));
    return { mediaType, kind: "index", configDigest: "", blobs: [], manifests: manifests.map(({ digest, size }) => ({ digest, size })), ...refers };
  }
  const config = descriptor(doc.config, "config");
  if (!Array.isArray(doc.layers)) throw new RegistryError("MANIFEST_INVALID", "an image manifest needs a layers array");
  const layers = doc.layers.map((l, i) => descriptor(l, `layers[${i}]`)).filter((l) => !FOREIGN_LAYER.test(l.mediaType));
  return {
    mediaType,
    kind: "image",
    configDigest: config.digest,
    blobs: [{ digest: config.digest, size: config.size }, ...layers.map(({ digest, size }) => ({ digest, size }))],
    manifests: [],
    ...refers,
    artifactType: refers.artifactType ?? (config.mediaType || null),
  };
}

/**
 * OCI image spec v1.1: `subject` (a descriptor; the subject itself need not exist in the
 * registry), `artifactType` and `annotations`, as the referrers API reports them.
 */
function referrerFields(doc: Record<string, unknown>): Pick<ParsedManifest, "subject" | "artifactType" | "annotations"> {
  const subject = doc.subject === undefined ? null : descriptor(doc.subject, "subject").digest;
  if (doc.artifactType !== undefined && (typeof doc.artifactType !== "string" || !MEDIA_TYPE.test(doc.artifactType))) {
    throw new RegistryError("MANIFEST_INVALID", "artifactType must be a media type");
  }
  const raw = doc.annotations;
  if (raw !== undefined && (!raw || typeof raw !== "object" || Array.isArray(raw) || Object.values(raw).some((v) => typeof v !== "string"))) {
    throw new RegistryError("MANIFEST_INVALID", "annotations must map strings to strings");
  }
  const annotations = raw && Object.keys(raw).length ? (raw as Record<string, string>) : null;
  return { subject, artifactType: (doc.artifactType as string | undefined) ?? null, annotations };
}

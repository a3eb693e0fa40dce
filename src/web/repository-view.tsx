import { originUnavailableReason, type OriginSettings } from "../git/origin-client";
import { encodeRefPath, readBlob, readBranches, readTree, type TreeEntry } from "../git/repository-reader";
import { reasonOf } from "../domain/errors";

/**
 * A project's files as its pages show them (the project page's file list and README, the tree and
 * blob pages), read through the git origin like GitLab's Repository API (src/git/repository-reader.ts).
 */

/** The most bytes of a file a page shows as text (GitLab's blob viewer also stops at a size). */
export const MAX_SHOWN_BYTES = 512 * 1024;

export type Listing = { kind: "files"; entries: TreeEntry[]; total: number } | { kind: "empty" } | { kind: "unavailable" };

/** A directory's entries at a ref; an empty or unknown ref reads as empty, an origin that is down as unavailable. */
export async function listDirectory(origin: OriginSettings, projectId: number, ref: string, path: string, limit = 100): Promise<Listing> {
  try {
    const { entries, total } = await readTree(origin, projectId, { ref, path, recursive: false, offset: 0, limit });
    return { kind: "files", entries, total };
  } catch (err) {
    if (originUnavailableReason(err)) return { kind: "unavailable" };
    if (reasonOf(err, ["missing"] as const)) return { kind: "empty" };
    throw err;
  }
}

/**
 * A file's text, or why it is not shown: missing, binary or too large (null when missing). An origin
 * that cannot be reached throws its 502/503 AppError: a file that may well exist is never a 404.
 */
export async function fileText(origin: OriginSettings, projectId: number, ref: string, path: string): Promise<{ text: string | null; size: number; blobId: string } | null> {
  let blob;
  try {
    blob = await readBlob(origin, projectId, ref, path);
  } catch (err) {
    if (reasonOf(err, ["missing", "invalid"] as const)) return null;
    throw err;
  }
  const bytes = new Uint8Array(await new Response(blob.body).arrayBuffer());
  if (bytes.length > MAX_SHOWN_BYTES || bytes.includes(0)) return { text: null, size: bytes.length, blobId: blob.blobId };
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), size: bytes.length, blobId: blob.blobId };
  } catch {
    return { text: null, size: bytes.length, blobId: blob.blobId };
  }
}

/** For a `.catch`: null when the origin could not be reached, any other error thrown on. */
export function unlessOriginUnavailable(err: unknown): null {
  if (originUnavailableReason(err)) return null;
  throw err;
}

/**
 * Splits `<ref>/<path>` of a /-/tree/ or /-/blob/ URL as GitLab does: the longest branch name that
 * the text starts with, else its first segment (a tag or commit id).
 */
export async function splitRefPath(origin: OriginSettings, projectId: number, refPath: string): Promise<{ ref: string; path: string }> {
  const { branches } = await readBranches(origin, projectId).catch(() => ({ branches: [] as { name: string }[] }));
  const match = branches
    .map((b) => b.name)
    .filter((name) => refPath === name || refPath.startsWith(`${name}/`))
    .sort((a, b) => b.length - a.length)[0];
  const ref = match ?? refPath.split("/", 1)[0] ?? "";
  return { ref, path: refPath.slice(ref.length + 1) };
}

/** The README a directory shows: GitLab looks for README with any extension, Markdown first. */
export function readmeOf(entries: TreeEntry[]): TreeEntry | null {
  const readmes = entries.filter((e) => e.type === "blob" && /^readme(\.[A-Za-z0-9]+)?$/i.test(e.name));
  return readmes.find((e) => /\.(md|markdown)$/i.test(e.name)) ?? readmes[0] ?? null;
}

export function FileList({ base, ref, entries }: { base: string; ref: string; entries: TreeEntry[] }) {
  return (
    <ul class="rows" id="file-list">
      {entries.map((e) => (
        <li>
          <a href={`${base}/-/${e.type === "tree" ? "tree" : "blob"}/${encodeRefPath(ref)}/${encodeRefPath(e.path)}`}>
            {e.type === "tree" ? `${e.name}/` : e.name}
          </a>
        </li>
      ))}
    </ul>
  );
}

/** A file's text as plain preformatted text: never rendered as HTML (GitLab renders Markdown; here it is shown as written). */
export function FileText({ name, text }: { name: string; text: string }) {
  return (
    <section class="card" aria-label={name}>
      <h2 class="id">{name}</h2>
      <pre>
        <code>{text}</code>
      </pre>
    </section>
  );
}

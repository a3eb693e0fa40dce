import type { Db } from "../db/client";
import { projectsByLowerPaths, type ProjectRow } from "../db/projects";

/**
 * Repository names of the container registry: `<group>/<project>[/<image>]` (GitLab), each
 * component as the OCI distribution spec allows (lowercase), images at most three levels deep.
 */
const COMPONENT = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*$/;
export const MAX_NAME_LENGTH = 255;
export const MAX_IMAGE_DEPTH = 3;

export function isValidRepositoryName(name: string): boolean {
  if (!name || name.length > MAX_NAME_LENGTH) return false;
  const parts = name.split("/");
  return parts.length >= 2 && parts.every((p) => COMPONENT.test(p));
}

export interface ResolvedName {
  project: ProjectRow;
  /** The image below the project ("" for the project's root image). */
  image: string;
  /** The full repository name, lowercase. */
  path: string;
}

/**
 * The project that owns a repository name: the longest project path that prefixes it. Project
 * paths are unique without regard to case and never a group's full path (docs/security.md
 * "Namespaces"), so each prefix names at most one project and a name exactly one owner; the
 * prefixes (lowercase, as valid names are) are looked up through the unique index on
 * lower(path_with_namespace).
 */
export async function resolveRepositoryName(db: Db, name: string): Promise<ResolvedName | null> {
  if (!isValidRepositoryName(name)) return null;
  const parts = name.split("/");
  const prefixes: string[] = [];
  for (let i = 2; i <= parts.length; i++) {
    if (parts.length - i <= MAX_IMAGE_DEPTH) prefixes.push(parts.slice(0, i).join("/"));
  }
  if (!prefixes.length) return null;
  const rows = await projectsByLowerPaths(db, prefixes);
  if (!rows.length) return null;
  const project = rows.reduce((a, b) => (b.pathWithNamespace.length > a.pathWithNamespace.length ? b : a));
  const image = name.slice(project.pathWithNamespace.length + 1);
  return { project, image, path: name };
}

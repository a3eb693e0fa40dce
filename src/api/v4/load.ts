import type { Context } from "hono";
import { isUniqueViolation } from "../../db/errors";
import type { GroupAbility, ProjectAbility } from "../../domain/abilities";
import { checkGroup, checkProject, type Asker, type CheckedGroup, type CheckedProject, type GroupAccess, type ProjectAccess } from "../../services/abilities";
import type { AppEnv } from "../../env";
import { z, type ZodType } from "zod";
import { badRequest, invalidParam } from "./errors";

/**
 * The :id of a project or group route (numeric id or URL-encoded full path), checked for an ability
 * of the REST caller by the one resolver (src/services/abilities.ts): 404 for what the caller may
 * not see, 403 for what they may see but not do. REST's door has judged the token's scopes.
 */
export async function loadProject<A extends ProjectAbility = "read_project">(
  c: Context<AppEnv>,
  idOrPath: string,
  ability: A = "read_project" as A,
): Promise<{ project: CheckedProject<A>; access: ProjectAccess }> {
  return checkProject(c.env, restAsker(c), idOrPath, ability);
}

export async function loadGroup<A extends GroupAbility = "read_group">(
  c: Context<AppEnv>,
  idOrPath: string,
  ability: A = "read_group" as A,
): Promise<{ group: CheckedGroup<A>; access: GroupAccess }> {
  return checkGroup(c.env, restAsker(c), idOrPath, ability);
}

/** The REST caller as the resolver asks it (a user principal: REST's routes that load projects require one). */
export const restAsker = (c: Context<AppEnv>): Asker => ({ kind: "user", user: c.get("principal").user, scopes: null });

/** GitLab's ISO 8601 timestamps with milliseconds. */
export const iso = (ms: number | null | undefined): string | null => (ms == null ? null : new Date(ms).toISOString());

const origins = new WeakMap<Request, string>();

/** The request's origin, parsed once per request: a listing renders two URLs per row. */
function originOf(c: Context): string {
  let origin = origins.get(c.req.raw);
  if (origin === undefined) {
    origin = new URL(c.req.url).origin;
    origins.set(c.req.raw, origin);
  }
  return origin;
}

export const webUrl = (c: Context, path: string): string => `${originOf(c)}/${path}`;

/** Runs an insert; a unique-index conflict becomes GitLab's 400 `{ message: { <field>: ["has already been taken"] } }`. */
export async function uniqueOr400<T>(field: string, insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (e) {
    if (isUniqueViolation(e)) throw badRequest({ [field]: ["has already been taken"] });
    throw e;
  }
}

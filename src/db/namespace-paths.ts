import { sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { isReservedTopLevelPath, namespacePathError, type NamespaceField } from "../domain/namespace-paths";
import { isUniqueViolation } from "./errors";

/**
 * The one place a user, group or project takes a path (docs/security.md "Namespaces"). D1 decides
 * whether it is free: the unique indexes on lower(username), lower(email), lower(full_path) and
 * lower(path_with_namespace), and the namespace triggers (a username is never a top-level group's
 * path, a group never a project's full path), so two concurrent creations never both win. This
 * turns D1's refusal, and a reserved top-level name, into namespacePathError (an AppError).
 */
export async function claimNamespacePath<T>(
  claim: { field: Exclude<NamespaceField, "email">; value: string; topLevel: boolean },
  write: () => Promise<T>,
): Promise<T> {
  if (claim.topLevel && isReservedTopLevelPath(claim.value)) throw namespacePathError(claim.field, "reserved", claim.value);
  try {
    return await write();
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    // The email's index names itself; every other refusal is of the path being claimed.
    const field = /users_email_lower_idx|users\.email/.test(errorText(e)) ? "email" : claim.field;
    throw namespacePathError(field, "taken", claim.value, { cause: e });
  }
}

function errorText(e: unknown): string {
  const parts: string[] = [];
  for (let err = e as { message?: string; cause?: unknown } | undefined, i = 0; err && i < 4; err = err.cause as typeof err, i++) parts.push(String(err.message ?? err));
  return parts.join(" ");
}

/**
 * `lower(column) = lower(value)`: the same expression as the unique indexes on lower(...), so
 * SQLite finds the row through the index (test/db/path-lookups.test.ts), and both sides fold case
 * the same way (SQLite's lower() folds ASCII only; so do the path and username rules).
 */
export function sameWithoutCase(column: SQLiteColumn, value: string): SQL {
  return sql`lower(${column}) = lower(${value})`;
}

/**
 * D1 reports a unique-index conflict in the error or, through drizzle ("Failed query: ..."), in its
 * cause. The one test for "someone else inserted it first" (races on usernames, seeds, iids...).
 */
export function isUniqueViolation(e: unknown): boolean {
  for (let err = e as { message?: string; cause?: unknown } | undefined, i = 0; err && i < 4; err = err.cause as typeof err, i++) {
    if (String(err.message ?? err).includes("UNIQUE")) return true;
  }
  return false;
}

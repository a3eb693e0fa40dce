/**
 * D1 binds at most 100 parameters a statement (DESIGN, "Changes that finish": bounded statements).
 * Every `IN (...)` over a list that is not bounded by construction goes through this module: either
 * split into statements of at most BATCH_SIZE ids (`batchesOf`, `selectInBatches`), or bound as one
 * parameter (`inIdList`, src/db/listing.ts). test/architecture/bounded-statements.test.ts fails on
 * any other `inArray` or `IN (` over a list.
 */
export const BATCH_SIZE = 90;

/** D1's limit on the parameters bound to one statement (Cloudflare's D1 limits). */
export const D1_MAX_BOUND_PARAMETERS = 100;

/** The items in slices of at most `size` (distinct slices, in order). */
export function* batchesOf<T>(items: readonly T[], size = BATCH_SIZE): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/** Runs one query per slice of the (deduplicated) items, one after another, and concatenates the rows. */
export async function selectInBatches<T, R>(items: readonly T[], query: (slice: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (const slice of batchesOf([...new Set(items)])) out.push(...(await query(slice)));
  return out;
}

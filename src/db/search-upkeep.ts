/**
 * Upkeep of the search indexes (docs/scaling.md, "Search"): the FTS5 tables of src/db/search.ts
 * are written by triggers one row at a time, so each write adds a small segment, and FTS5's
 * automerge leaves a table of n rows in several segments at several levels. A query reads the
 * posting list of each of its trigrams in every segment; a trigram that most rows hold (`pro` in
 * every "project...") is then read in pieces, once per segment, which made a search of 100k
 * projects several times slower than on one merged segment.
 *
 * FTS5's incremental 'merge' command with a negative page count merges segments of every level
 * towards one, writing at most about that many leaf pages per statement; on a table already in
 * one segment it does nothing. The cron runs it a bounded number of times per table per run, so
 * a bulk import is merged within a few runs and a request never pays for the merge.
 */
export const SEARCH_INDEXES = ["projects_fts", "groups_fts", "users_fts"] as const;
/** Leaf pages written per statement (FTS5's unit of merge work). */
export const MERGE_PAGES = 500;
/** Statements per table per cron run: at most about 2,000 leaf pages written per table. */
export const MERGES_PER_RUN = 4;

/**
 * One merge step of `table` (a name of SEARCH_INDEXES; never caller input): the first of a run
 * starts a merge of every level (a negative count), the next ones continue it (a positive count),
 * as FTS5 documents its incremental optimize. While a merge is under way a query reads the
 * merged part and what is left of the inputs, so it may cost more until the merge ends.
 */
export function mergeStep(table: (typeof SEARCH_INDEXES)[number], first: boolean): string {
  return `INSERT INTO ${table}(${table}, rank) VALUES('merge', ${first ? -MERGE_PAGES : MERGE_PAGES})`;
}

/** The cron's task: a bounded merge of every search index; returns the statements run per table. */
export async function mergeSearchIndexes(d1: D1Database): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of SEARCH_INDEXES) {
    for (let i = 0; i < MERGES_PER_RUN; i++) await d1.prepare(mergeStep(table, i === 0)).run();
    counts[`${table} merge steps`] = MERGES_PER_RUN;
  }
  return counts;
}

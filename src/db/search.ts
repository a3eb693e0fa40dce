import { sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";

/**
 * `?search=` of users, projects and groups (docs/scaling.md, "Search"), with GitLab's rules
 * (Gitlab::SQL::Pattern#fuzzy_arel_match): the query is split into words (a "quoted phrase" is one
 * word); words shorter than MIN_SEARCH_CHARS are dropped; every remaining word must occur, without
 * regard to case, in the same column (a row matches when one of the columns holds them all). A
 * query with no word of MIN_SEARCH_CHARS is an exact, case-insensitive match of the whole query.
 *
 * Substrings are found through an FTS5 table with the trigram tokenizer per searched table
 * (`users_fts`, `projects_fts`, `groups_fts`, kept in step by triggers: the custom migration
 * scale_search_fts), so a search reads the matching rows, never the whole table; exact matches go
 * through the lower(...) indexes of the columns.
 *
 * A query holding a control character (C0 or DEL, once whitespace is squished) matches nothing:
 * no name, path or e-mail address holds one, and FTS5 refuses a NUL inside a phrase with an
 * error (docs/security.md, "Search").
 */
export const MIN_SEARCH_CHARS = 3;

/** C0 controls and DEL; tab, line feed and the like are whitespace and were squished first. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

export interface SearchTerms {
  /** Words of MIN_SEARCH_CHARS or more, each to be found as a substring. */
  words: string[];
  /** The whole query (trimmed, spaces squished, lower case) when no word is long enough. */
  exact: string | null;
  /** The query holds a control character: it matches no row. */
  matchesNothing?: true;
}

/** GitLab's REGEX_QUOTED_TERM split: "quoted phrases" and space-separated words. */
export function searchTerms(query: string): SearchTerms {
  const squished = query.trim().replace(/\s+/g, " ");
  if (CONTROL_CHARACTER.test(squished)) return { words: [], exact: null, matchesNothing: true };
  const words = (squished.match(/"[^"]+"|[^\s]+/g) ?? []).map((w) => w.replace(/^"(.*)"$/, "$1")).filter((w) => [...w].length >= MIN_SEARCH_CHARS);
  if (words.length) return { words, exact: null };
  return { words: [], exact: squished ? squished.toLowerCase() : null };
}

/** An FTS5 string literal: double quotes around, inner double quotes doubled (no operator survives). */
const phrase = (word: string) => `"${word.replace(/"/g, '""')}"`;

/**
 * The FTS5 query of the words: for each column, all the words in that column; any column. With the
 * trigram tokenizer a phrase of three or more characters matches it as a case-insensitive substring.
 *
 * One word is one phrase under a column set (`{name path description} : "word"`): a phrase never
 * spans two columns, so it matches exactly the rows of the per-column OR, but FTS5 reads each
 * trigram's posting list once instead of once per column (a word made of common trigrams,
 * `project77777`, read lists as long as the table three times; docs/scaling.md, "Search").
 * Several words keep the per-column OR: they must all be in the same column (GitLab's rule),
 * which a column set would not check.
 */
export function ftsQuery(columns: readonly string[], words: readonly string[]): string {
  if (words.length === 1) return `{${columns.join(" ")}} : ${phrase(words[0])}`;
  const all = words.map(phrase).join(" AND ");
  return columns.map((col) => `${col} : (${all})`).join(" OR ");
}

export interface Searchable {
  /** The FTS5 table (rowid = the row's id) and the columns it indexes, as named in it. */
  fts: string;
  ftsColumns: readonly string[];
  id: SQLiteColumn;
  /** The columns an exact (short) query is compared with; each has an index on lower(column). */
  exactColumns: readonly SQLiteColumn[];
}

/**
 * A search's condition with the query in a placeholder (`search`), so that a listing's statement
 * is built once per shape (src/db/shaped-statement.ts): `key` is which of the three forms it takes
 * (FTS match of its columns, exact match, nothing), `values` binds the query.
 */
export interface SearchFilter {
  key: string;
  cond: SQL;
  values: Record<string, unknown>;
}

/**
 * The condition that selects the rows a query matches, as an id set the FTS table or the lower()
 * indexes serve, or null for an empty query (no filter, as GitLab's blank search).
 */
export function searchCondition(t: Searchable, query: string): SearchFilter | null {
  const terms = searchTerms(query);
  if (terms.matchesNothing) return { key: "nothing", cond: sql`0`, values: {} };
  const search = sql.placeholder("search");
  if (terms.words.length) {
    return {
      key: `${t.fts}:${t.ftsColumns.join(",")}`,
      cond: sql`${t.id} IN (SELECT rowid FROM ${sql.identifier(t.fts)} WHERE ${sql.identifier(t.fts)} MATCH ${search})`,
      values: { search: ftsQuery(t.ftsColumns, terms.words) },
    };
  }
  if (terms.exact === null) return null;
  return {
    key: `exact:${t.exactColumns.map((c) => c.name).join(",")}`,
    cond: sql`(${sql.join(
      t.exactColumns.map((col) => sql`lower(${col}) = ${search}`),
      sql` OR `,
    )})`,
    values: { search: terms.exact },
  };
}

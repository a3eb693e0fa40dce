import { and, asc, desc, eq, getTableColumns, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "./client";
import { cappedCount, keysetAfter, rowCount, totalOrNull, type Direction } from "./listing";
import { searchPage, type ListPage } from "./page";
import { groupsAndDescendants } from "./namespaces";
import { rawRows, rowReader, shaped } from "./shaped-statement";
import { searchCondition, type SearchFilter } from "./search";
import type { GroupRow, ProjectRow } from "./projects";
import { groups, projects } from "./schema/projects";

/**
 * GET /projects and GET /groups (docs/scaling.md, "Listings"). An ordinary user sees public and
 * internal rows and those of their memberships; `visibility IN (...) OR mine` cannot be served by
 * one index, so the listing is the merge of three branches, each read in the listing's order from
 * an index and stopped at the page's end: public rows (index on visibility and the order column),
 * internal rows (the same), and the user's private rows (found from their memberships, bounded by
 * them). Administrators and membership-only listings are one branch.
 */

export interface Viewer {
  /** null: an anonymous caller, who sees public rows only (GitLab). */
  userId: number | null;
  isAdmin: boolean;
  /** membership=true / owned=true: only the user's own. */
  membershipOnly: boolean;
}

export interface ListOptions<O extends string> {
  orderBy: O;
  sort: Direction;
  limit: number;
  offset: number;
  /** Keyset: the rows after this (order value, id) in the listing's order. */
  after?: { value: unknown; id: number };
  /** A ?search= condition (projectSearch, groupSearch): the listing is read from its matches. */
  search?: SearchFilter | null;
  /** A keyset page (GitLab's legacy id_after/id_before keyset of projects): no total is counted. */
  withoutTotal?: boolean;
}

/** A listing's page (src/db/page.ts): no total above COUNT_CAP or on keyset pages. */
export type ListResult<T> = ListPage<T>;

/**
 * The placeholders of a listing's statement (src/db/shaped-statement.ts): its text is built once
 * per shape, and these are the values each request binds. Every value that can differ between two
 * requests of one shape is one of these, or a filter's own (ListFilters).
 */
const P = {
  user: sql.placeholder("user"),
  /** The page's size plus one (the extra row tells whether a next page exists). */
  limit: sql.placeholder("limit"),
  offset: sql.placeholder("offset"),
  afterValue: sql.placeholder("afterValue"),
  afterId: sql.placeholder("afterId"),
};

/**
 * A listing's own filters (a project's visibility, a group's subgroups): `key` names which are
 * present (it is part of the statement's shape), `conds` refer to their values by placeholder
 * only, and `values` binds them.
 */
export interface ListFilters {
  key: string;
  conds: SQL[];
  values: Record<string, unknown>;
}

/** The ids of the groups the user is a member of, and all their descendants. */
const memberGroupIds = (userId: Placeholder) =>
  groupsAndDescendants(sql`SELECT source_id FROM members WHERE source_type = 'group' AND user_id = ${userId}`);

/**
 * Ids of the projects of the user's personal namespace, direct memberships and member groups' trees.
 * UNION ALL: an IN list needs no distinct ids, and UNION made SQLite merge-sort the three sets.
 */
const myProjectIds = (userId: Placeholder) => sql`(
  SELECT p2.id FROM projects p2 WHERE p2.namespace_kind = 'user' AND p2.namespace_id = ${userId}
  UNION ALL SELECT source_id FROM members WHERE source_type = 'project' AND user_id = ${userId}
  UNION ALL SELECT p3.id FROM projects p3 WHERE p3.namespace_kind = 'group' AND p3.namespace_id IN ${memberGroupIds(userId)})`;

interface Listable {
  table: typeof projects | typeof groups;
  /** Its name in row_counts (the custom migration people_row_counts). */
  counted: "projects" | "groups";
  id: SQLiteColumn;
  visibility: SQLiteColumn;
  /** The condition of the user's own rows (an id subquery, so it is found from the memberships). */
  mine: (userId: Placeholder) => SQL;
}

/**
 * A branch of the listing; `counter`: the row_counts entry that holds its number of rows;
 * `fromMemberships`: its rows are found from the user's memberships (bounded by them), so the
 * statement reads them once (a materialized CTE) for both the page and the total.
 */
interface Branch {
  where: SQL;
  counter?: string;
  fromMemberships?: boolean;
}

/**
 * The branches whose union is what the viewer sees. The private branch writes `+visibility` so
 * that SQLite finds its rows from the memberships, not by walking every private row in order.
 * A whole visibility, or the whole table, is counted by triggers (row_counts).
 */
function branches(t: Listable, v: Viewer): Branch[] {
  if (v.userId === null) return [v.membershipOnly ? { where: sql`1 = 0` } : { where: sql`${t.visibility} = 'public'`, counter: `${t.counted}:public` }];
  if (v.membershipOnly) return [{ where: t.mine(P.user), fromMemberships: true }];
  if (v.isAdmin) return [{ where: sql`1 = 1`, counter: t.counted }];
  return [
    { where: sql`${t.visibility} = 'public'`, counter: `${t.counted}:public` },
    { where: sql`${t.visibility} = 'internal'`, counter: `${t.counted}:internal` },
    { where: sql`+${t.visibility} = 'private' AND ${t.mine(P.user)}`, fromMemberships: true },
  ];
}

/**
 * A search is one branch read from its matches (the FTS index or a lower() index, src/db/search.ts)
 * and sorted: the visibility rule is then a filter on the matches (`+visibility` and `+col` keep
 * SQLite from walking a visibility or order index instead, which a rare match would read to its end).
 */
function searchBranch(t: Listable, v: Viewer, search: SQL): SQL {
  if (v.userId === null) return and(search, v.membershipOnly ? sql`1 = 0` : sql`+${t.visibility} = 'public'`)!;
  if (v.membershipOnly) return and(search, t.mine(P.user))!;
  if (v.isAdmin) return search;
  return and(search, sql`(+${t.visibility} IN ('public', 'internal') OR ${t.mine(P.user)})`)!;
}

/** One branch as a source of (id, k): its table rows, or the CTE that holds them (`mine<i>`). */
interface Arm {
  where: SQL;
  cte?: SQL;
}

/**
 * The ids of the page's rows (and one more: it tells whether a next page exists, without a count),
 * found from the indexes alone; only those rows are then read from the table. Several branches
 * are merged in the listing's order: each is a UNION ALL arm that its index delivers already
 * sorted (the private arm is sorted from the user's memberships), so SQLite merges them (MERGE
 * (UNION ALL)) and stops at offset + page + 1 rows in all, where sorting the union of every
 * branch's first offset + page rows read three times as many and sorted them in a temporary
 * B-tree (docs/scaling.md, "Listings at GitLab's sizes": page 200 of a non-administrator).
 */
function pageIds(t: Listable, arms: Arm[], col: SQLiteColumn | SQL, sort: Direction): SQL {
  const window = sql`LIMIT ${P.limit} OFFSET ${P.offset}`;
  const dir = sql.raw(sort);
  if (arms.length === 1) {
    const [a] = arms;
    if (a.cte) return sql`SELECT id FROM ${a.cte} ORDER BY k ${dir}, id ${dir} ${window}`;
    return sql`SELECT ${t.id} AS id FROM ${t.table} WHERE ${a.where} ORDER BY ${col} ${dir}, ${t.id} ${dir} ${window}`;
  }
  const union = sql.join(
    arms.map((a) => (a.cte ? sql`SELECT id, k FROM ${a.cte}` : sql`SELECT ${t.id} AS id, ${col} AS k FROM ${t.table} WHERE ${a.where}`)),
    sql` UNION ALL `,
  );
  return sql`${union} ORDER BY k ${dir}, id ${dir} ${window}`;
}

/**
 * A listing's page and total (listingStatement), its statement's text built once per shape and
 * only the values bound per request (src/db/shaped-statement.ts); a plain search is searchPage's.
 */
async function list<T>(db: Db, t: Listable, v: Viewer, filters: ListFilters, orderCol: SQLiteColumn, o: ListOptions<string>): Promise<ListPage<T>> {
  // A keyset page has no total (GitLab sends none).
  const counting = !(o.after || o.withoutTotal);
  const values: Record<string, unknown> = {
    ...filters.values,
    ...o.search?.values,
    user: v.userId,
    limit: o.limit + 1,
    offset: o.offset,
    afterValue: o.after?.value ?? null,
    afterId: o.after?.id ?? null,
  };
  const key = `${t.counted}|${viewerKind(v)}|${orderCol.name}|${o.sort}|${filters.key}|${o.search ? `search:${o.search.key}` : ""}`;
  if (o.search && !o.after) {
    const dir = o.sort === "asc" ? asc : desc;
    const col = sql`+${orderCol}`;
    const where = and(searchBranch(t, v, o.search.cond), ...filters.conds)!;
    return searchPage<T>(db, t.table, t.id, where, [dir(col), dir(t.id)], o, { key: `${key}|search-page`, values });
  }
  const shape: Shape = { t, v, filters, orderCol, sort: o.sort, after: o.after !== undefined, counting, search: o.search?.cond ?? null };
  const pageKey = `${key}|${shape.after ? "after" : ""}|${counting ? "total" : ""}`;
  const pageStatement = shaped(pageKey, () => listingStatement(shape).page);
  const reader = rowReader<T>(t.table);
  const found = await rawRows<unknown[]>(db, pageStatement, values);
  const rows = found.slice(0, o.limit).map((r) => reader.read(r));
  const hasNext = found.length > o.limit;
  if (!counting) return { rows, total: null, hasNext };
  if (found.length) return { rows, total: totalOrNull(Number(found[0][reader.width])), hasNext };
  if (o.offset === 0) return { rows, total: 0, hasNext };
  const countStatement = shaped(`${pageKey}|count`, () => listingStatement(shape).count);
  const [[n]] = await rawRows<[number]>(db, countStatement, values);
  return { rows, total: totalOrNull(Number(n)), hasNext };
}

/** What a listing's statement is built from: everything its text depends on, and no value (see P). */
interface Shape {
  t: Listable;
  v: Viewer;
  filters: ListFilters;
  orderCol: SQLiteColumn;
  sort: Direction;
  after: boolean;
  counting: boolean;
  search: SQL | null;
}

/** The part of a viewer that decides the statement's branches (branches(), searchBranch()); the user's id is a value. */
const viewerKind = (v: Viewer): string => `${v.userId === null ? "anonymous" : v.isAdmin ? "admin" : "user"}${v.membershipOnly ? ":mine" : ""}`;

/**
 * A page and its total in one statement, one D1 round trip (docs/scaling.md, "Listings at GitLab's
 * sizes"): the page's rows carry the total as their last column, and a branch found from the
 * user's memberships is a materialized CTE read by both the page and the count, where a batch of
 * a page query and a count query found the memberships twice. Rows come back as arrays (D1's raw
 * form, no column names repeated per row) and are keyed by list(). A page past the end has no row
 * to carry the total: only then is it counted by a second statement (`count`); an empty first
 * page means 0.
 */
function listingStatement({ t, v, filters, orderCol, sort, after, counting, search }: Shape): { page: SQL; count: SQL } {
  const col: SQLiteColumn | SQL = search ? sql`+${orderCol}` : orderCol;
  const conds = [...filters.conds];
  if (after) conds.push(keysetAfter(col, t.id, sort, P.afterValue, P.afterId));
  const found: Branch[] = search ? [{ where: searchBranch(t, v, search) }] : branches(t, v);
  const parts = found.map((b) => and(b.where, ...conds)!);
  const ctes: SQL[] = [];
  const arms: Arm[] = found.map((b, i) => {
    if (!b.fromMemberships) return { where: parts[i] };
    const cte = sql.raw(`mine${i}`);
    ctes.push(sql`${cte} AS MATERIALIZED (SELECT ${t.id} AS id, ${col} AS k FROM ${t.table} WHERE ${parts[i]})`);
    return { where: parts[i], cte };
  });
  const withClause = ctes.length ? sql`WITH ${sql.join(ctes, sql`, `)} ` : sql``;
  // A branch that is a whole visibility (or the whole table), with nothing else to filter it, is
  // counted by triggers; the others count their rows, no further than COUNT_CAP.
  const count = sql.join(
    found.map((b, i) => (b.counter && !conds.length ? rowCount(b.counter) : cappedCount(arms[i].cte ?? sql`${t.table}`, arms[i].cte ? undefined : parts[i]))),
    sql` + `,
  );
  const select = sql.join(
    Object.values(getTableColumns(t.table)).map((c) => sql`${c}`),
    sql`, `,
  );
  const ids = pageIds(t, arms, col, sort);
  const order = sort === "asc" ? sql`${col} ASC, ${t.id} ASC` : sql`${col} DESC, ${t.id} DESC`;
  return {
    page: sql`${withClause}SELECT ${select}${counting ? sql`, ${count}` : sql``} FROM ${t.table} WHERE ${t.id} IN (SELECT id FROM (${ids})) ORDER BY ${order} LIMIT ${P.limit}`,
    count: sql`${withClause}SELECT ${count}`,
  };
}

const PROJECT_ORDER = {
  id: projects.id,
  name: projects.name,
  path: projects.path,
  created_at: projects.createdAt,
  last_activity_at: projects.lastActivityAt,
} as const;
export type ProjectOrder = keyof typeof PROJECT_ORDER;

const projectListable: Listable = {
  table: projects,
  counted: "projects",
  id: projects.id,
  visibility: projects.visibility,
  mine: (userId) => sql`${projects.id} IN ${myProjectIds(userId)}`,
};

/** GET /projects' filters (GitLab's visibility, id_after, id_before; /groups/:id/projects' group). */
export interface ProjectFilters {
  visibility?: string;
  idAfter?: number;
  idBefore?: number;
  /** The group whose direct projects are listed. */
  groupId?: number;
}

/** The filters present, their conditions by placeholder, and their values (ListFilters). */
function projectConditions(f: ProjectFilters): ListFilters {
  const out: ListFilters = { key: "", conds: [], values: {} };
  const add = (name: string, value: unknown, cond: SQL) => {
    out.key += `${name},`;
    out.conds.push(cond);
    out.values[name] = value;
  };
  if (f.visibility) add("visibility", f.visibility, eq(projects.visibility, sql.placeholder("visibility")));
  if (f.idAfter !== undefined) add("idAfter", f.idAfter, sql`${projects.id} > ${sql.placeholder("idAfter")}`);
  if (f.idBefore !== undefined) add("idBefore", f.idBefore, sql`${projects.id} < ${sql.placeholder("idBefore")}`);
  if (f.groupId !== undefined) add("groupId", f.groupId, and(eq(projects.namespaceKind, "group"), eq(projects.namespaceId, sql.placeholder("groupId")))!);
  return out;
}

/** Projects the viewer may see (GitLab: public, internal, and those of their memberships). */
export function listProjects(db: Db, viewer: Viewer, filters: ProjectFilters, o: ListOptions<ProjectOrder>): Promise<ListResult<ProjectRow>> {
  return list<ProjectRow>(db, projectListable, viewer, projectConditions(filters), PROJECT_ORDER[o.orderBy], o);
}

/**
 * A page of projects by last activity, as the pages list them (/dashboard/projects,
 * /explore/projects): what `viewer` may see, or for a visitor (null) the public ones only.
 */
export function projectsByActivity(db: Db, viewer: Viewer | null, page: number, perPage: number): Promise<ListResult<ProjectRow>> {
  // A visitor is nobody's member (no user has id 0).
  const who: Viewer = viewer ?? { userId: 0, isAdmin: false, membershipOnly: false };
  const filters: ProjectFilters = viewer ? {} : { visibility: "public" };
  return listProjects(db, who, filters, { orderBy: "last_activity_at", sort: "desc", limit: perPage, offset: (page - 1) * perPage });
}

/**
 * GitLab's Project.search: words in the name, path or description; with search_namespaces=true the
 * namespace's path too (path_with_namespace). Null for a blank query (no filter).
 */
export function projectSearch(query: string, namespaces: boolean): SearchFilter | null {
  return searchCondition(
    namespaces
      ? { fts: "projects_fts", ftsColumns: ["name", "path", "description", "path_with_namespace"], id: projects.id, exactColumns: [projects.name, projects.path, projects.pathWithNamespace] }
      : { fts: "projects_fts", ftsColumns: ["name", "path", "description"], id: projects.id, exactColumns: [projects.name, projects.path] },
    query,
  );
}

/** GitLab's Group.search of a top-level listing (include_parents): the name, path or full path. */
export function groupSearch(query: string): SearchFilter | null {
  return searchCondition(
    { fts: "groups_fts", ftsColumns: ["name", "path", "full_path"], id: groups.id, exactColumns: [groups.name, groups.path, groups.fullPath] },
    query,
  );
}

const GROUP_ORDER = { id: groups.id, name: groups.name, path: groups.path } as const;
export type GroupOrder = keyof typeof GROUP_ORDER;

const groupListable: Listable = {
  table: groups,
  counted: "groups",
  id: groups.id,
  visibility: groups.visibility,
  mine: (userId) => sql`${groups.id} IN ${memberGroupIds(userId)}`,
};

/** Groups the viewer may see; with `parentId`, only the direct subgroups of that group (a group page). */
export function listGroups(db: Db, viewer: Viewer, o: ListOptions<GroupOrder>, filters: { parentId?: number } = {}): Promise<ListResult<GroupRow>> {
  const byParent: ListFilters =
    filters.parentId === undefined
      ? { key: "", conds: [], values: {} }
      : { key: "parentId,", conds: [eq(groups.parentId, sql.placeholder("parentId"))], values: { parentId: filters.parentId } };
  return list<GroupRow>(db, groupListable, viewer, byParent, GROUP_ORDER[o.orderBy], o);
}


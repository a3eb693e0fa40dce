// The cost of a search's FTS5 match alone, as D1 reports it (`meta.duration`, SQL time, the mean of 100, inside
// workerd's SQLite, free of the HTTP round trip and of the machine's load on the Worker), on the
// seed of bench/lib/listing-ratios.mjs: each query as the per-column OR it used to be and as one
// phrase under the column set (src/db/search.ts ftsQuery), with the index as the triggers' inserts
// left it and after the cron's segment merge (src/db/search-upkeep.ts). Used by
// bench/listings.mjs --search-sql; docs/scaling.md, "Search".

const QUERIES = [
  ["projects_fts", ["name", "path", "description"], "project77777"],
  ["groups_fts", ["name", "path", "full_path"], "group17777"],
  ["users_fts", ["username", "name"], "user17777"],
];

// D1 reports whole milliseconds: the mean of many repetitions resolves below one.
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

function variants(columns, word) {
  return {
    "per-column OR": columns.map((c) => `${c} : ("${word}")`).join(" OR "),
    "column set": `{${columns.join(" ")}} : "${word}"`,
  };
}

/** Mean SQL time (ms) of every query variant, `reps` times each, interleaved. */
export async function measureMatches(db, reps = 100) {
  const rows = [];
  for (const [table, columns, word] of QUERIES) {
    const v = variants(columns, word);
    const times = Object.fromEntries(Object.keys(v).map((k) => [k, []]));
    for (let i = 0; i < reps + 2; i++) {
      for (const [k, match] of Object.entries(v)) {
        const res = await db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ?`).bind(match).all();
        if (i >= 2) times[k].push(res.meta.duration);
      }
    }
    for (const k of Object.keys(v)) rows.push({ table, word, variant: k, meanMs: mean(times[k]) });
  }
  return rows;
}

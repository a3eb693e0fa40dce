/**
 * D1 probes for the bench routes (src/bench/routes.ts, only with BENCH_ROUTES): the parts of a
 * listing's cost, measured apart (bench/listing-phases.mjs). Never on a served route.
 */

/** One statement on the raw binding, without drizzle. */
export async function rawFirst(d1: D1Database): Promise<number | null> {
  return ((await d1.prepare("SELECT id FROM users WHERE id = 1").first()) as { id: number } | null)?.id ?? null;
}

/** A batch of two trivial reads (one round trip). */
export async function rawBatchOfTwo(d1: D1Database): Promise<number> {
  const [a, b] = await d1.batch([d1.prepare("SELECT id FROM users WHERE id = 1"), d1.prepare("SELECT n FROM row_counts WHERE name = 'projects'")]);
  return a.results.length + b.results.length;
}

/** n runs of a statement against n runs of SELECT 1, in milliseconds per run, as the Worker sees them. */
export async function timeStatement(d1: D1Database, sql: string, params: unknown[], n: number): Promise<{ statementMs: number; trivialMs: number }> {
  const time = async (q: string, ps: unknown[]) => {
    const start = performance.now();
    for (let i = 0; i < n; i++) await d1.prepare(q).bind(...ps).raw();
    return (performance.now() - start) / n;
  };
  await time(sql, params);
  const trivialMs = await time("SELECT 1", []);
  return { statementMs: await time(sql, params), trivialMs };
}

/** The binding behind a wrapper that keeps every prepared statement's SQL and bound values in `ran`. */
export function recordingD1(d1: D1Database, ran: { sql: string; params: unknown[] }[]): D1Database {
  return new Proxy(d1, {
    get(target, prop) {
      if (prop === "prepare") {
        return (q: string) => {
          const rec = { sql: q, params: [] as unknown[] };
          ran.push(rec);
          const s = target.prepare(q);
          return new Proxy(s, {
            get(t, p) {
              if (p === "bind") return (...args: unknown[]) => ((rec.params = args), t.bind(...args));
              const v = Reflect.get(t, p, t);
              return typeof v === "function" ? v.bind(t) : v;
            },
          });
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

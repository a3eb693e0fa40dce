// A thin autocannon wrapper shared by the bench scripts: one scenario at a given number of
// connections, reduced to requests/s and latency percentiles, plus a Markdown table printer.
import os from "node:os";
import { execSync } from "node:child_process";
import autocannon from "autocannon";

/** A numeric command-line option `--name <n>` of a bench script, or the fallback. */
export function cliArg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Runs one scenario; `opts` are autocannon options (url, method, headers, body, requests...). */
export async function measure(name, connections, opts, { duration = 8 } = {}) {
  const result = await autocannon({ connections, duration, pipelining: 1, ...opts });
  const row = {
    name,
    connections,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
  console.log(`${name} @${connections}: ${row.rps} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, non-2xx ${row.non2xx}, errors ${row.errors}`);
  return row;
}

/**
 * A pool of per-chain state for scenarios where each request consumes a value and the response
 * yields the next one (refresh rotations): a request takes a value, its response puts the
 * successor back. Works with any number of connections up to the pool's size.
 */
export class ChainPool {
  constructor(values) {
    this.values = [...values];
    this.inflight = new Set();
  }
  take() {
    const v = this.values.shift();
    if (v !== undefined) this.inflight.add(v);
    return v;
  }
  /** The response to the request that took `old` yielded `next` (or `old` again on failure). */
  give(old, next = old) {
    this.inflight.delete(old);
    if (next !== undefined) this.values.push(next);
  }
  /**
   * autocannon drops the responses still in flight when a run ends: put their values back so the
   * next run can use them (a refresh token re-presented within the grace window gets its pair).
   */
  restore() {
    for (const v of this.inflight) this.values.push(v);
    this.inflight.clear();
  }
  get size() {
    return this.values.length;
  }
}

export function machine() {
  const mem = (() => {
    try {
      return execSync("free -h", { encoding: "utf8" }).trim();
    } catch {
      return `${Math.round(os.totalmem() / 2 ** 30)} GiB`;
    }
  })();
  const nproc = (() => {
    try {
      return execSync("nproc", { encoding: "utf8" }).trim();
    } catch {
      return String(os.cpus().length);
    }
  })();
  // Other work on the machine skews every figure: the load average says how busy it was.
  return { nproc, mem, node: process.version, cpu: os.cpus()[0]?.model ?? "unknown", loadavg: os.loadavg().map((x) => x.toFixed(2)).join(" ") };
}

export function table(rows, baselineFor = () => null) {
  const lines = [
    "| scenario | conns | req/s | p50 ms | p99 ms | non-2xx | errors | vs baseline |",
    "|---|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const r of rows) {
    const base = baselineFor(r, rows);
    const ratio = base ? `${Math.round((r.rps / base.rps) * 100)}% of ${base.name}` : "";
    lines.push(`| ${r.name} | ${r.connections} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} | ${ratio} |`);
  }
  return lines.join("\n");
}

/**
 * Throughput on a shared machine: every scenario runs in short slices, the scenarios taking turns
 * slice by slice, so background load falls on all of them alike. Requests/s = all requests / all
 * slice time; p50 is the median of the slices' p50s, p99 the highest slice p99.
 * `scenarios` maps a name to autocannon options, plus optional `beforeRun()` (may be async: e.g.
 * signing the next slice's DPoP proofs outside the timing) and `afterRun()` hooks.
 */
export async function measureInterleaved(scenarios, connections, { slices = 4, sliceSeconds = 3 } = {}) {
  const acc = Object.fromEntries(Object.keys(scenarios).map((k) => [k, { total: 0, secs: 0, p50s: [], p99: 0, non2xx: 0, errors: 0 }]));
  for (let i = 0; i < slices; i++) {
    for (const [name, { beforeRun, afterRun, ...opts }] of Object.entries(scenarios)) {
      await beforeRun?.();
      const r = await autocannon({ connections, duration: sliceSeconds, pipelining: 1, ...opts });
      afterRun?.();
      const a = acc[name];
      a.total += r.requests.total;
      a.secs += r.duration;
      a.p50s.push(r.latency.p50);
      a.p99 = Math.max(a.p99, r.latency.p99);
      a.non2xx += r.non2xx;
      a.errors += r.errors + r.timeouts;
    }
  }
  return Object.entries(acc).map(([name, a]) => {
    const sorted = [...a.p50s].sort((x, y) => x - y);
    const row = {
      name,
      connections,
      rps: Math.round(a.total / a.secs),
      p50: sorted[Math.floor(sorted.length / 2)],
      p99: a.p99,
      total: a.total,
      non2xx: a.non2xx,
      errors: a.errors,
    };
    console.log(`${name} @${connections}: ${row.rps} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, non-2xx ${row.non2xx}, errors ${row.errors}`);
    return row;
  });
}

import { getConfig, refusedProblems } from "../config";
import { databaseAnswers } from "../db/database-state";
import type { Bindings } from "../env";
import { gitOriginProblem } from "../git/provisioning";
import { integrityReadiness } from "./integrity";
import { schemaBehindResponse, schemaState } from "./schema-check";

/**
 * The service refuses to serve rather than run unsafely: a malformed variable, a missing or weak
 * SECRET_KEY_BASE outside local development, or a first start without ROOT_PASSWORD. The refusal
 * (configRefused in src/config.ts, an AppError with its problems) is a 503 with a plain
 * explanation for the operator (no secret in it) and one log line, and it is re-evaluated on every
 * request, so fixing the variable and redeploying is all it takes.
 */
/**
 * Null when the service may serve; else the operator's 503: a configuration that cannot be used,
 * or a database behind this build's migrations (./schema-check.ts, checked once per isolate).
 * Root creation and the other first-start steps run only after both pass.
 */
export async function readinessRefusal(env: Bindings): Promise<Response | null> {
  try {
    getConfig(env);
  } catch (err) {
    const problems = refusedProblems(err);
    if (problems) return refusalResponse(problems);
    throw err;
  }
  const schema = await schemaState(env);
  return schema.current ? null : schemaBehindResponse(schema, getConfig(env).localDev);
}

export function refusalResponse(problems: string[]): Response {
  console.error(`service refused to start: ${problems.join("; ")}`);
  const body = [
    "This service is not configured safely yet, so it refuses to serve.",
    "",
    ...problems.map((p) => `- ${p}`),
    "",
    "See docs/deploy.md (Secrets and configuration).",
    "",
  ].join("\n");
  return new Response(body, {
    status: 503,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "Retry-After": "60" },
  });
}

/**
 * GitLab's readiness probe (`GET /-/readiness`), once the service serves at all (the refusal
 * above answers first): each dependency's check, 200 when all pass, 503 otherwise. The database
 * is checked with one query; the git origin with its signed health check, so a secret that
 * differs between the Worker and the origin shows here, not first on a user's push. The detail
 * `integrity_check` carries the cron's last integrity findings (counts by kind).
 */
export async function readinessReport(env: Bindings): Promise<{ status: 200 | 503; body: Record<string, unknown> }> {
  const check = async (run: () => Promise<string | null>) => {
    try {
      const problem = await run();
      return problem ? { status: "failed", message: problem } : { status: "ok" };
    } catch (err) {
      return { status: "failed", message: err instanceof Error ? err.name : "error" };
    }
  };
  const db = await check(async () => ((await databaseAnswers(env.DB)) ? null : "no answer"));
  const git = await check(() => gitOriginProblem(env));
  const ok = db.status === "ok" && git.status === "ok";
  // The cron's last integrity findings (./integrity.ts): reported, but they do not make the instance unready.
  const integrity = db.status === "ok" ? await integrityReadiness(env).catch(() => ({ status: "unknown" })) : { status: "unknown" };
  return { status: ok ? 200 : 503, body: { status: ok ? "ok" : "failed", db_check: [db], git_origin_check: [git], integrity_check: [integrity] } };
}

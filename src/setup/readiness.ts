import { getConfig, refusedProblems } from "../config";
import type { Bindings } from "../env";
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

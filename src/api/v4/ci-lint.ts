import { Hono } from "hono";
import { parse, stringify } from "yaml";
import { z } from "zod";
import { lintPipeline } from "../../domain/ci-lint";
import type { AppEnv } from "../../env";
import { gate } from "../../http/gate";
import { READ_API, requireAuth } from "./auth";
import { loadProject } from "./load";
import { parseParams, readParams } from "./validate";
import { boolParam } from "./params";

/**
 * CI lint (GitLab): the schedule's pipeline rules applied at the configured version
 * (src/domain/ci-lint.ts). Linting reads, so read_api suffices.
 */
const ciLint = new Hono<AppEnv>();

const LintBody = z.object({
  content: z.string(),
  include_merged_yaml: boolParam.optional(),
  include_jobs: boolParam.optional(),
  dry_run: boolParam.optional(),
});

function merged(content: string): string | undefined {
  try {
    return stringify(parse(content));
  } catch {
    return undefined;
  }
}

ciLint.post("/ci/lint", requireAuth(READ_API), async (c) => {
  const input = parseParams(LintBody, await readParams(c));
  const result = lintPipeline(input.content, gate(c).version);
  for (const id of result.deprecatedIds) gate(c).markDeprecated(id);
  return c.json({
    status: result.valid ? "valid" : "invalid",
    valid: result.valid,
    errors: result.errors,
    warnings: result.warnings,
    ...(input.include_merged_yaml ? { merged_yaml: result.valid ? merged(input.content) : undefined } : {}),
  });
});

ciLint.post("/projects/:id/ci/lint", requireAuth(READ_API), async (c) => {
  await loadProject(c, c.req.param("id"), "create_pipeline");
  const input = parseParams(LintBody, await readParams(c));
  const result = lintPipeline(input.content, gate(c).version);
  for (const id of result.deprecatedIds) gate(c).markDeprecated(id);
  return c.json({
    valid: result.valid,
    errors: result.errors,
    warnings: result.warnings,
    merged_yaml: result.valid ? merged(input.content) : null,
    includes: [],
  });
});

export default ciLint;

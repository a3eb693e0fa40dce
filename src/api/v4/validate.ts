import { zValidator } from "@hono/zod-validator";
import type { ValidationTargets } from "hono";
import type { ZodType } from "zod";
import { invalidParam } from "./errors";

/**
 * zod validation of query, form or JSON input that fails with GitLab's body
 * (`{"error":"<param> is missing"}` or `{"error":"<param> is invalid"}`), never raw Zod output.
 */
export function validate<T extends ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) {
  return zValidator(target, schema, (result) => {
    if (result.success) return;
    const issue = result.error.issues[0];
    const name = issue?.path.join(".") || target;
    const missing = issue?.code === "invalid_type" && /received undefined/.test(issue.message);
    throw invalidParam(name, missing ? "is missing" : "is invalid");
  });
}

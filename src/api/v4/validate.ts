import { zValidator } from "@hono/zod-validator";
import type { ValidationTargets } from "hono";
import { validator } from "hono/validator";
import type { z, ZodType } from "zod";
import { ApiError, badRequest, invalidParam } from "./errors";

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

/**
 * Grape (GitLab's API framework) reads parameters from the query string, a JSON body or a form
 * body alike; GitLab's own curl examples send forms. This validates their merge (body wins) with
 * the same error bodies as validate(); it is read with c.req.valid("json").
 */
export function validateParams<T extends ZodType>(schema: T) {
  return validator("json", async (_value, c) => {
    const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
    let body: Record<string, unknown> = {};
    if (/^application\/([\w.-]+\+)?json$/.test(type)) {
      try {
        const parsed = await c.req.json();
        if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw badRequest("400 Bad request - body must be a JSON object");
        body = parsed;
      } catch (e) {
        if (e instanceof ApiError) throw e;
        throw badRequest("400 Bad request - malformed JSON");
      }
    } else if (type === "application/x-www-form-urlencoded" || type === "multipart/form-data") {
      const form = await c.req.parseBody({ all: true });
      body = Object.fromEntries(Object.entries(form).map(([k, v]) => [k.replace(/\[\]$/, ""), v]));
    }
    const result = schema.safeParse({ ...c.req.query(), ...body });
    if (!result.success) {
      const issue = result.error.issues[0];
      const name = issue?.path.join(".") || "params";
      const missing = issue?.code === "invalid_type" && /received undefined/.test(issue.message);
      throw invalidParam(name, missing ? "is missing" : "is invalid");
    }
    return result.data as z.output<T>;
  });
}

import { zValidator } from "@hono/zod-validator";
import type { Context, ValidationTargets } from "hono";
import { validator } from "hono/validator";
import type { z, ZodError, ZodType } from "zod";
import { badRequest, invalidParam, type ApiError } from "./errors";

/**
 * GitLab's 400 body for the first failed parameter: `{"error":"<param> is missing"}` when the value
 * at the issue's path is absent, `{"error":"<param> is invalid"}` otherwise; never raw Zod output.
 */
function paramError(error: ZodError<unknown> | { issues: ZodError["issues"] }, data: unknown): ApiError {
  const issue = error.issues[0];
  const name = issue?.path.join(".") || "params";
  // Missing when the value at the issue's path is absent (zod's messages differ by schema kind).
  let value: unknown = data;
  for (const key of issue?.path ?? []) value = value && typeof value === "object" ? (value as Record<PropertyKey, unknown>)[key as PropertyKey] : undefined;
  const missing = value === undefined || /received undefined/.test(issue?.message ?? "");
  return invalidParam(name, missing ? "is missing" : "is invalid");
}

/** zod parsing of already-read parameters, failing with GitLab's 400 body. */
export function parseParams<T extends ZodType>(schema: T, data: unknown): z.output<T> {
  const result = schema.safeParse(data);
  if (result.success) return result.data as z.output<T>;
  throw paramError(result.error, data);
}

/**
 * A request's parameters as Grape (GitLab's API framework) reads them: the query string merged
 * with a JSON, form or multipart body (the body wins; `name[]` form keys lose their brackets).
 * A malformed JSON body is a 400, not an empty one.
 */
export async function readParams(c: Context): Promise<Record<string, unknown>> {
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  let body: Record<string, unknown> = {};
  if (/^application\/([\w.-]+\+)?json$/.test(type)) {
    const parsed = await c.req.json().catch(() => undefined);
    if (parsed === undefined) throw badRequest("400 Bad request - malformed JSON");
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw badRequest("400 Bad request - body must be a JSON object");
    body = parsed as Record<string, unknown>;
  } else if (type === "application/x-www-form-urlencoded" || type === "multipart/form-data") {
    const form = await c.req.parseBody({ all: true });
    body = Object.fromEntries(Object.entries(form).map(([k, v]) => [k.replace(/\[\]$/, ""), v]));
  }
  return { ...c.req.query(), ...body };
}

/** Middleware: zod validation of one target (query, json, form, param) with GitLab's 400 body. */
export function validate<T extends ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) {
  return zValidator(target, schema, (result) => {
    if (!result.success) throw paramError(result.error, result.data);
  });
}

/** Middleware: validates readParams(c) (query + body); read the result with c.req.valid("json"). */
export function validateParams<T extends ZodType>(schema: T) {
  return validator("json", async (_value, c) => parseParams(schema, await readParams(c)));
}

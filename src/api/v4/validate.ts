import { zValidator } from "@hono/zod-validator";
import type { Context, ValidationTargets } from "hono";
import { validator } from "hono/validator";
import type { z, ZodError, ZodType } from "zod";
import { ApiError, badRequest, invalidParam } from "./errors";
import { coerceBool } from "./params";

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
  if (missing) return invalidParam(name, "is missing");
  // A value outside a parameter's list (Grape's `values:`, a zod enum or literal): Grape's wording.
  const outsideValues = issue?.code === ("invalid_enum_value" as string) || issue?.code === ("invalid_value" as string);
  return invalidParam(name, outsideValues ? "does not have a valid value" : "is invalid");
}

/** zod parsing of already-read parameters, failing with GitLab's 400 body. */
export function parseParams<T extends ZodType>(schema: T, data: unknown): z.output<T> {
  const result = schema.safeParse(data);
  if (result.success) return result.data as z.output<T>;
  throw paramError(result.error, data);
}

/**
 * Query parameters as Grape reads them: `key[]=a&key[]=b` is the array `key: ["a","b"]`, any other
 * repeated key keeps its last value (Rack). Hono has already decoded them, leniently (a malformed
 * percent-encoding stays as it was sent rather than throwing).
 */
export function queryParams(c: Context): Record<string, unknown> {
  return gather(Object.entries(c.req.queries()));
}

function gather(entries: Iterable<[string, unknown[]]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, values] of entries) {
    if (key.endsWith("[]")) out[key.slice(0, -2)] = values;
    else out[key] = values[values.length - 1];
  }
  return out;
}

/** The largest request body any REST route reads as parameters (package files stream elsewhere). */
const MAX_PARAMS_BODY_BYTES = 1024 * 1024;

/**
 * A request's parameters as Grape (GitLab's API framework) reads them: the query string merged
 * with a JSON, form or multipart body (the body wins). A malformed, oversized or too deeply nested
 * body is GitLab's 400, never a 500 (issue 8 item 7, issue 12).
 */
export async function readParams(c: Context): Promise<Record<string, unknown>> {
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > MAX_PARAMS_BODY_BYTES) throw new ApiError(413, { message: "413 Request Entity Too Large" });
  let body: Record<string, unknown> = {};
  if (/^application\/([\w.-]+\+)?json$/.test(type)) {
    // An empty body is no parameters (Grape's reading; python-gitlab sends DELETE with a JSON type and no body).
    const text = await c.req.text();
    let parsed: unknown = {};
    if (text.trim() !== "") {
      try {
        parsed = JSON.parse(text);
      } catch {
        throw badRequest("400 Bad request - malformed JSON");
      }
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw badRequest("400 Bad request - body must be a JSON object");
    body = parsed as Record<string, unknown>;
  } else if (type === "application/x-www-form-urlencoded" || type === "multipart/form-data") {
    body = gather(Object.entries(await readForm(c)).map(([k, v]) => [k, [v].flat()]));
  }
  return { ...queryParams(c), ...body };
}

/** A form or multipart body; one that does not parse (no boundary, truncated) is a 400. */
async function readForm(c: Context) {
  try {
    return await c.req.parseBody({ all: true });
  } catch {
    throw badRequest("400 Bad request - malformed form body");
  }
}

/** An optional Boolean read outside a schema: undefined when absent, GitLab's 400 when not a Boolean. */
export function optionalBool(name: string, v: unknown): boolean | undefined {
  if (v === undefined) return undefined;
  const b = coerceBool(v);
  if (b === undefined) throw invalidParam(name);
  return b;
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

/** Middleware: validates queryParams(c); read the result with c.req.valid("query"). */
export function validateQuery<T extends ZodType>(schema: T) {
  return validator("query", (_value, c) => parseParams(schema, queryParams(c)) as z.output<T>);
}

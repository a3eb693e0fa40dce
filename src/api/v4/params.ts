import { z } from "zod";
import { cleanDisplayName } from "../../domain/display-name";

/**
 * GitLab's parameter coercion (Grape with dry-types), in one place for every REST route: what a
 * form, a query string or a JSON body may send for a Boolean, an Integer or an Array. Anything
 * else fails the schema, and validate.ts turns that into GitLab's 400 `{"error":"<param> is invalid"}`.
 */

const TRUE_WORDS = new Set(["true", "t", "yes", "y", "on", "1"]);
const FALSE_WORDS = new Set(["false", "f", "no", "n", "off", "0"]);

/** Grape's Boolean, in any case (python-gitlab sends `True`); undefined when the value is none of them. */
export function coerceBool(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v !== "string") return undefined;
  const word = v.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/** Boolean parameter: true/false/1/0/t/f/yes/no/y/n/on/off in any case, or a JSON boolean. */
export const boolParam = z.unknown().transform((v, ctx) => {
  const b = coerceBool(v);
  if (b === undefined) {
    ctx.addIssue({ code: "custom", message: "is invalid" });
    return z.NEVER;
  }
  return b;
});

/**
 * Strict decimal integers: `" 1"`, `0x10`, `1e3`, `1.0`, `+1` and `01` are refused (issue 8, item
 * 16: `DELETE /applications/%201` once deleted application 1). One canonical spelling per number,
 * so no two strings name the same record. JSON numbers must be safe integers.
 */
const DECIMAL = /^(0|-?[1-9]\d{0,15})$/;

/** An integer parameter (query, form, JSON or path) within [min, max]. */
export const intParam = (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) =>
  z.unknown().transform((v, ctx) => {
    let n: number | undefined;
    if (typeof v === "number" && Number.isSafeInteger(v)) n = v;
    else if (typeof v === "string" && DECIMAL.test(v)) n = Number(v);
    if (n === undefined || !Number.isSafeInteger(n) || n < min || n > max) {
      ctx.addIssue({ code: "custom", message: "is invalid" });
      return z.NEVER;
    }
    return n;
  });

/** A record id: a positive strict decimal integer. */
export const idParam = intParam(1);

/**
 * An Array parameter: a JSON array, repeated `key[]=a&key[]=b` (readParams gathers them), or the
 * comma-separated list GitLab accepts (`CommaSeparatedToArray`): `a,b`. Each item is checked by `item`.
 */
export const arrayParam = <T extends z.ZodType>(item: T) =>
  z
    .union([z.array(z.unknown()), z.string(), z.number()])
    .transform((v) =>
      Array.isArray(v)
        ? v
        : String(v)
            .split(",")
            .map((s) => s.trim())
            .filter((s) => s !== ""),
    )
    .pipe(z.array(item));

/** A string parameter: trimmed, non-empty, bounded. */
export const text = (max = 255) => z.string().trim().min(1).max(max);
/** A name a person types that others read: invisible format characters stripped (src/domain/display-name.ts). */
export const displayName = (max = 255) => z.string().max(max).transform(cleanDisplayName).pipe(z.string().min(1));

import { z } from "zod";

/** Grape's Boolean: true/false from JSON, or the strings a form sends. */
export const boolParam = z
  .union([z.boolean(), z.enum(["true", "false", "1", "0", "yes", "no", "on", "off"])])
  .transform((v) => v === true || v === "true" || v === "1" || v === "yes" || v === "on");

/** A positive integer path or query parameter (ids). */
export const idParam = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** A string parameter: trimmed, non-empty, bounded. */
export const text = (max = 255) => z.string().trim().min(1).max(max);

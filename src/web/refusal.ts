import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AppError, ERROR_STATUS, reasonOf } from "../domain/errors";
import { ThrottledError } from "../throttle";
import { throttledPageError } from "./throttled";

/** The abilities resolver's refusals (src/services/abilities.ts), as the pages word them. */
const ABILITY_REASONS = ["project_not_found", "group_not_found", "ability_forbidden"] as const;
const ABILITY_SENTENCES: Record<string, string> = {
  project_not_found: "The project you were looking for could not be found.",
  group_not_found: "The group you were looking for could not be found.",
  ability_forbidden: "You are not allowed to do this in this project.",
};

/** Whether the abilities resolver refused: not found or not allowed (an anonymous visitor is sent to sign in instead). */
export const isAbilityRefusal = (err: Error): boolean => reasonOf(err, ABILITY_REASONS) !== null;

/**
 * What a page shows for a refused request (the pages' and the authorize endpoint's renderers): the
 * status and the sentence, from the error family (its message is written for the person) or from
 * Hono's own HTTPException (a body limit, say). Null for an unexpected error, which the renderer
 * logs and answers with its plain 500 page.
 */
export function pageRefusal(err: Error, c: Context): { status: ContentfulStatusCode; message: string } | null {
  if (err instanceof ThrottledError) return { status: 429, message: throttledPageError(c, err) };
  if (err instanceof AppError && err.code !== "internal") return { status: ERROR_STATUS[err.code], message: ABILITY_SENTENCES[reasonOf(err, ABILITY_REASONS) ?? ""] ?? err.message };
  if (err instanceof HTTPException && err.status < 500) return { status: err.status as ContentfulStatusCode, message: err.message || "The request was refused." };
  return null;
}

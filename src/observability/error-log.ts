import type { Context } from "hono";

/**
 * The one log line of an unexpected error (docs/operations.md, "Logs"): what an operator needs to
 * find the cause (the error's name, message and stack, the request id and method) and nothing
 * that came with the request. Messages can quote data: drizzle appends a failed query's bound
 * parameters, a parser may echo input. So the parameters are cut, anything shaped like a
 * credential is replaced by "[redacted]", and the text is bounded; no header, body, query string
 * or URL is ever read here.
 */
export interface ErrorLogLine {
  msg: "unexpected error";
  family: string;
  request_id: string | null;
  method: string;
  error: { name: string; message: string; stack: string | null };
}

const MAX_MESSAGE = 1000;
const MAX_STACK = 4000;

// Token prefixes GitLab and this service use, then a credential's body.
const PREFIXED_TOKEN = /\b(?:glpat|gldt|gloas|glrt|glcbt|glptt|glft|glsoat|gat|grt|gldc)-[A-Za-z0-9_.\-]+/gi;
// Long runs of token alphabet (hashes, random secrets, JWT segments), never stack paths: a path
// holds "/" and "." between short names.
const SECRET_LIKE = /[A-Za-z0-9_\-+]{32,}={0,2}/g;
const AUTH_SCHEME = /\b(Bearer|Basic|token)\s+[^\s"',;]+/gi;
const KEY_VALUE = /\b(password|passwd|secret|token|code|code_verifier|client_secret|refresh_token|access_token|otp_attempt)(["']?\s*[:=]\s*["']?)[^\s"'&,;}]+/gi;

/** The text with drizzle's parameter list cut and credential-shaped parts replaced. */
export function scrub(text: string, max: number): string {
  const cut = text.replace(/\n?\s*params:[^\n]*/g, "");
  const clean = cut
    .replace(PREFIXED_TOKEN, "[redacted]")
    .replace(AUTH_SCHEME, "$1 [redacted]")
    .replace(KEY_VALUE, "$1$2[redacted]")
    .replace(SECRET_LIKE, "[redacted]");
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

export function errorLogLine(family: string, err: unknown, c: Pick<Context, "get" | "req"> | null): ErrorLogLine {
  const e = err instanceof Error ? err : null;
  let requestId: string | null = null;
  try {
    requestId = (c?.get("requestId") as string | undefined) ?? null;
  } catch {
    // A context without variables (an error before the request log ran).
  }
  return {
    msg: "unexpected error",
    family,
    request_id: requestId,
    method: c?.req.method ?? "",
    error: {
      name: e ? e.name : typeof err,
      message: e ? scrub(e.message, MAX_MESSAGE) : "",
      stack: e?.stack ? scrub(e.stack, MAX_STACK) : null,
    },
  };
}

/** Logs an unexpected error of an API family's renderer: one JSON line on stderr. */
export function logUnexpectedError(family: string, err: unknown, c: Pick<Context, "get" | "req"> | null): void {
  console.error(JSON.stringify(errorLogLine(family, err, c)));
}

/**
 * Every configuration variable of the service, in one table: the Worker's configuration
 * (src/config.ts), `npm start` (scripts/start.mjs imports this file directly; Node strips the
 * types) and README's configuration table (checked by test/e2e/config-table.test.ts) all come from
 * here. Adding a variable is one row below, one field in src/config.ts, and one README row.
 *
 * This file must stay plain: no imports and only erasable TypeScript, so Node can load it as is.
 */

/** How a value is checked. Every kind accepts the empty string as "not set". */
export type VariableKind = "version" | "boolean" | "positive-integer" | "non-negative-integer" | "port" | "http-url" | "text" | "address-header";

export interface VariableSpec {
  name: string;
  kind: VariableKind;
  /** Deployed default (README's "Default" column); null when there is none. */
  default: string | null;
  /** What `npm start` uses instead, when it differs. */
  localDefault?: string;
  /** Read only by scripts/start.mjs, never passed to the Worker. */
  startOnly?: boolean;
  /** A secret: `wrangler secret put` when deployed; never on a command line or in a log. */
  secret?: boolean;
}

export const VARIABLES: readonly VariableSpec[] = [
  { name: "PORT", kind: "port", default: "8787", startOnly: true },
  { name: "PERSIST_DIR", kind: "text", default: ".wrangler/state", startOnly: true },
  { name: "ROOT_PASSWORD", kind: "text", default: null, localDefault: "5iveL!fe-local-root", secret: true },
  { name: "SERVICE_VERSION", kind: "version", default: "16.0" },
  { name: "SERVICE_REVISION", kind: "text", default: null },
  { name: "ALLOW_INSECURE_REDIRECTS", kind: "boolean", default: "false", localDefault: "true" },
  // Client ID Metadata Documents served over http from a loopback address (docs/agents.md): local
  // development only, as no client can prove it owns a loopback URL.
  { name: "ALLOW_LOOPBACK_CLIENT_METADATA", kind: "boolean", default: "false", localDefault: "true" },
  { name: "GIT_ORIGIN", kind: "http-url", default: "" },
  // The key the Worker signs every request to GIT_ORIGIN with; the origin serves nothing unsigned
  // (docs/git.md, "Signed requests"). npm start makes a fresh one for the origin it starts.
  { name: "GIT_ORIGIN_SECRET", kind: "text", default: "", secret: true },
  { name: "ISSUER", kind: "http-url", default: "" },
  // Identity providers whose ID-JAGs the jwt-bearer grant accepts (MCP Enterprise-Managed
  // Authorization; docs/agents.md): a JSON array of {"issuer", "jwks_uri"}; empty: none.
  { name: "TRUSTED_ID_JAG_ISSUERS", kind: "text", default: "" },
  { name: "SECRET_KEY_BASE", kind: "text", default: null, localDefault: "local-development-secret-key-base-change-me", secret: true },
  { name: "SECRET_KEY_BASE_PREVIOUS", kind: "text", default: "", secret: true },
  { name: "ACCESS_TOKEN_TTL_SECONDS", kind: "positive-integer", default: "7200" },
  { name: "REFRESH_GRACE_SECONDS", kind: "positive-integer", default: "60" },
  { name: "SESSION_TTL_SECONDS", kind: "positive-integer", default: "28800" },
  // How long an isolate may remember that a token was valid (DESIGN, "Validation cache (bounded
  // staleness)"); every change that takes access away answers only once this has passed. 0: off.
  { name: "VALIDATION_CACHE_SECONDS", kind: "non-negative-integer", default: "5" },
  { name: "UPLOAD_MAX_FILE_BYTES", kind: "positive-integer", default: String(100 * 1024 * 1024) },
  { name: "UPLOAD_MAX_PART_BYTES", kind: "positive-integer", default: String(4 * 1024 * 1024) },
  { name: "UPLOAD_MAX_PARTS", kind: "positive-integer", default: "10000" },
  { name: "UPLOAD_STREAM_PUT_MAX_BYTES", kind: "positive-integer", default: String(64 * 1024 * 1024) },
  { name: "SEED_DEMO_DATA", kind: "boolean", default: "false", localDefault: "true" },
  { name: "BENCH_ROUTES", kind: "boolean", default: "false" },
  // The one structured line per request (docs/operations.md, Logs). npm start turns it off unless
  // --verbose: wrangler's default log level would discard every line after paying for it.
  { name: "REQUEST_LOG", kind: "boolean", default: "true" },
  { name: "LOCAL_DEV", kind: "boolean", default: "false", localDefault: "true" },
  // Which header names the client address when a proxy the operator runs stands in front of the
  // service (src/http/client-address.ts). Empty: the connection's own address (CF-Connecting-IP as
  // Cloudflare sets it; under npm start the socket's, whatever a client sends).
  { name: "CLIENT_ADDRESS_HEADER", kind: "address-header", default: "" },
  // Failed authentication per client address (docs/security.md, Throttle): GitLab's Rack::Attack
  // bans an address after repeated failures; a NAT of honest users stays far below 30 a minute.
  { name: "THROTTLE_FAILED_AUTH_LIMIT", kind: "positive-integer", default: "30" },
  { name: "THROTTLE_FAILED_AUTH_WINDOW_SECONDS", kind: "positive-integer", default: "60" },
  { name: "THROTTLE_FAILED_AUTH_BAN_SECONDS", kind: "positive-integer", default: "900" },
  // Failed bearer tokens per client address, a bucket of their own (docs/security.md, Throttle):
  // a client retrying with an expired token must not ban sign-in from its address, and a token
  // cannot be guessed, so the limit only bounds the load and audit rows of a flood.
  { name: "THROTTLE_FAILED_BEARER_LIMIT", kind: "positive-integer", default: "600" },
  { name: "THROTTLE_FAILED_BEARER_WINDOW_SECONDS", kind: "positive-integer", default: "60" },
  { name: "THROTTLE_FAILED_BEARER_BAN_SECONDS", kind: "positive-integer", default: "300" },
  // The account lockout, per account and client address (GitLab: 10 failures, 10 minutes).
  { name: "LOCKOUT_MAX_FAILURES", kind: "positive-integer", default: "10" },
  { name: "LOCKOUT_WINDOW_SECONDS", kind: "positive-integer", default: "3600" },
  { name: "LOCKOUT_SECONDS", kind: "positive-integer", default: "600" },
  // The account-wide bound on guessing, over every address (docs/security.md, "Account-wide bound"):
  // once an account's failed passwords or second-factor codes reach these within the window, only
  // addresses it signed in from before may try that secret, for ACCOUNT_GUARD_SECONDS.
  { name: "ACCOUNT_GUARD_PASSWORD_FAILURES", kind: "positive-integer", default: "50" },
  { name: "ACCOUNT_GUARD_TWO_FACTOR_FAILURES", kind: "positive-integer", default: "10" },
  { name: "ACCOUNT_GUARD_WINDOW_SECONDS", kind: "positive-integer", default: "3600" },
  { name: "ACCOUNT_GUARD_SECONDS", kind: "positive-integer", default: "3600" },
  // Container registry (docs/registries.md, "Limits").
  { name: "REGISTRY_TOKEN_TTL_SECONDS", kind: "positive-integer", default: "300" },
  { name: "REGISTRY_MAX_BLOB_BYTES", kind: "positive-integer", default: String(10 * 1024 * 1024 * 1024) },
  { name: "REGISTRY_MAX_MANIFEST_BYTES", kind: "positive-integer", default: String(4 * 1024 * 1024) },
  { name: "REGISTRY_UPLOAD_TTL_SECONDS", kind: "positive-integer", default: "86400" },
  // Mail (password reset, e-mail confirmation; docs/deploy.md, "Mail"): the sender, and an HTTP mail
  // API by URL and key. Without MAIL_HTTP_URL a send_email binding named SEND_EMAIL is used; under
  // npm start, the local outbox at /-/mail.
  { name: "MAIL_FROM", kind: "text", default: "" },
  { name: "MAIL_HTTP_URL", kind: "http-url", default: "" },
  { name: "MAIL_HTTP_KEY", kind: "text", default: "", secret: true },
  // Per-project container registry quota in bytes; empty: no quota (docs/registries.md, "Accounting and quota").
  { name: "REGISTRY_PROJECT_QUOTA_BYTES", kind: "positive-integer", default: "" },
  // What a killed request left (docs/operations.md, "Integrity check"): package objects without a row, empty packages, dynamic clients nobody used.
  { name: "ORPHAN_SWEEP_SECONDS", kind: "positive-integer", default: "3600" },
];

export const VARIABLE_NAMES: ReadonlySet<string> = new Set(VARIABLES.map((v) => v.name));

/** The development value of SECRET_KEY_BASE is published in this file: never acceptable when deployed. */
export const PUBLISHED_SECRET_KEY_BASE = "local-development-secret-key-base-change-me";
/** GitLab generates 128 hex characters; we ask for at least 32 characters of real randomness. */
export const MIN_SECRET_KEY_BASE_LENGTH = 32;
/** The shortest GIT_ORIGIN_SECRET the Worker and the git origin (scripts/git-origin.mjs) accept. */
export const MIN_ORIGIN_SECRET_LENGTH = 32;

const INT = /^[1-9][0-9]*$/;

/**
 * Why SECRET_KEY_BASE is refused, one check for the Worker (src/config.ts) and `npm start` alike.
 * Outside local development the development value is published in this repository, so TOTP
 * secrets and CSRF tokens keyed by it would be forgeable: refuse it, and refuse short keys. In
 * local development (`local`) an unset value falls back to the development one; a value that is
 * set is held to the same length as a deployed one, so `npm start` never serves a key a Worker refuses.
 */
export function secretKeyBaseProblems(value: string | undefined, local: boolean): string[] {
  if (local && (value === undefined || value === PUBLISHED_SECRET_KEY_BASE)) return [];
  if (value === undefined) return ["SECRET_KEY_BASE is not set: set a secret of at least 32 random characters (wrangler secret put SECRET_KEY_BASE)"];
  if (value === PUBLISHED_SECRET_KEY_BASE) return ["SECRET_KEY_BASE is the published development value: set a secret of your own (wrangler secret put SECRET_KEY_BASE)"];
  if (value.length < MIN_SECRET_KEY_BASE_LENGTH) return [`SECRET_KEY_BASE is too short: use at least ${MIN_SECRET_KEY_BASE_LENGTH} random characters, for example from openssl rand -hex 64`];
  return [];
}

/**
 * The releases the announced-changes schedule spans (docs/deprecations.md): GitLab's 13.0 to 13.12,
 * 14.0 to 14.10, 15.0 to 15.11 and 16.0, the newest milestone. Another version has no defined
 * behaviour, so it is refused (test/versioning/schedule-versions.test.ts checks every milestone of
 * the catalogue is here).
 */
const LAST_MINOR_OF_MAJOR: Readonly<Record<number, number>> = { 13: 12, 14: 10, 15: 11, 16: 0 };
export const SCHEDULE_VERSIONS: readonly string[] = Object.entries(LAST_MINOR_OF_MAJOR).flatMap(([major, last]) =>
  Array.from({ length: last + 1 }, (_, minor) => `${major}.${minor}`),
);
const SCHEDULE_RANGES = Object.entries(LAST_MINOR_OF_MAJOR)
  .map(([major, last]) => (last === 0 ? `${major}.0` : `${major}.0 to ${major}.${last}`))
  .join(", ");

/**
 * Ports the fetch standard calls bad (https://fetch.spec.whatwg.org/#bad-port): browsers and fetch
 * refuse to connect to them, so a service there would look dead (npm start's readiness check and
 * every browser fail with a network error).
 */
export const BAD_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117,
  119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636,
  989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** Why a value of this kind is refused, or null when it is acceptable. */
export function valueProblem(kind: VariableKind, value: string): string | null {
  if (value === "") return null;
  switch (kind) {
    case "version":
      if (!/^\d+\.\d+$/.test(value)) return "must be major.minor, for example 15.0";
      return SCHEDULE_VERSIONS.includes(value) ? null : `is not a version of the schedule: use one of ${SCHEDULE_RANGES}`;
    case "boolean":
      return value === "true" || value === "false" ? null : 'must be "true" or "false"';
    case "positive-integer":
      return INT.test(value) && Number.isSafeInteger(Number(value)) ? null : "must be a positive whole number, for example 3600";
    case "non-negative-integer":
      return /^(0|[1-9][0-9]*)$/.test(value) && Number.isSafeInteger(Number(value)) ? null : "must be a whole number, 0 or more, for example 5";
    case "port":
      if (!INT.test(value) || Number(value) > 65535) return "must be a port number between 1 and 65535";
      return BAD_PORTS.has(Number(value)) ? "is a port browsers and fetch refuse to connect to (the fetch standard's bad ports); choose another, for example 8787" : null;
    case "http-url":
      return isHttpUrl(value) ? null : "must be an absolute http(s) URL without query, fragment or trailing slash, for example https://auth.example.com";
    case "text":
      return null;
    case "address-header":
      return /^(cf-connecting-ip|x-forwarded-for)$/i.test(value) ? null : 'must be "CF-Connecting-IP" or "X-Forwarded-For" (or empty: the connection\'s own address)';
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.search === "" && url.hash === "" && !value.endsWith("/");
  } catch {
    return false;
  }
}

/**
 * Checks raw values (environment, vars, .dev.vars) against the table and fills in defaults.
 * `local` selects the local defaults of `npm start`. Names outside the table are ignored here;
 * callers that read a file of variables refuse unknown names themselves.
 */
export function checkVariables(
  raw: Readonly<Record<string, unknown>>,
  local: boolean,
): { values: Record<string, string>; problems: string[] } {
  const values: Record<string, string> = {};
  const problems: string[] = [];
  for (const spec of VARIABLES) {
    const given = raw[spec.name];
    const text = typeof given === "string" ? given : "";
    const problem = valueProblem(spec.kind, text);
    if (problem) {
      // A secret's value never appears in a message.
      problems.push(spec.secret ? `${spec.name} ${problem}` : `${spec.name}=${JSON.stringify(text)} ${problem}`);
      continue;
    }
    const fallback = (local ? spec.localDefault : undefined) ?? spec.default;
    if (text !== "") values[spec.name] = text;
    else if (fallback !== null) values[spec.name] = fallback;
  }
  return { values, problems };
}

import { checkVariables, MIN_ORIGIN_SECRET_LENGTH, PUBLISHED_SECRET_KEY_BASE, secretKeyBaseProblems } from "./config-variables";
import { AppError } from "./domain/errors";
import type { Bindings } from "./env";

/** One throttle bucket's policy (src/throttle/failure-counter.ts counts by it). */
export interface ThrottlePolicy {
  /** Failures allowed in one window; the one that reaches it starts the ban. */
  limit: number;
  windowSeconds: number;
  banSeconds: number;
}

/**
 * The parsed, validated configuration. Parsed once per isolate per env object, because
 * vars never change while an isolate lives. The variables, their kinds and defaults are the table
 * in config-variables.ts (shared with `npm start` and README).
 */
export interface Config {
  serviceVersion: string;
  /** The build's revision for /api/v4/version (SERVICE_REVISION, else the package version). */
  serviceRevision: string | null;
  allowInsecureRedirects: boolean;
  /** Loopback http URLs as Client ID Metadata Document client ids (development; docs/agents.md). */
  allowLoopbackClientMetadata: boolean;
  gitOrigin: string;
  /** The shared key of the requests to the git origin (src/git/origin-signature.ts). */
  gitOriginSecret: string;
  issuer: string;
  /** Identity providers whose ID-JAGs the jwt-bearer grant accepts (TRUSTED_ID_JAG_ISSUERS; docs/agents.md). */
  trustedIdJagIssuers: TrustedIssuer[];
  accessTokenTtlSeconds: number;
  refreshGraceSeconds: number;
  sessionTtlSeconds: number;
  /** The validation cache's bound L in seconds (src/credentials/validation-cache.ts); 0: off. */
  validationCacheSeconds: number;
  secretKeyBase: string;
  /** Keys that still verify and decrypt during a SECRET_KEY_BASE rotation (docs/deploy.md). */
  previousSecretKeyBases: string[];
  upload: { maxFileBytes: number; maxPartBytes: number; maxParts: number; streamPutMaxBytes: number };
  benchRoutes: boolean;
  /** Whether each request writes its structured log line (REQUEST_LOG). */
  requestLog: boolean;
  throttle: { failedAuth: ThrottlePolicy; failedBearer: ThrottlePolicy; accountLock: ThrottlePolicy };
  /** The account-wide bound on guessing (src/services/accounts/account-guard.ts). */
  accountGuard: { passwordFailures: number; twoFactorFailures: number; windowSeconds: number; guardSeconds: number };
  seedDemoData: boolean;
  /**
   * The header that carries the client address (src/http/client-address.ts): CF-Connecting-IP
   * unless the operator opted in to X-Forwarded-For (CLIENT_ADDRESS_HEADER).
   */
  clientAddressHeader: "cf-connecting-ip" | "x-forwarded-for";
  /** Only `npm start` and the test pool set LOCAL_DEV: development defaults are refused otherwise. */
  localDev: boolean;
  /** Mail (src/mail/): the sender (empty: gitlab@<host>) and the HTTP mail API, when one is named. */
  mail: { from: string; httpUrl: string; httpKey: string };
  /** Container registry limits (docs/registries.md, "Limits"). */
  registry: { tokenTtlSeconds: number; maxBlobBytes: number; maxManifestBytes: number; uploadTtlSeconds: number; projectQuotaBytes: number | null };
  /**
   * How old what a killed request left must be before the cron sweeps it (docs/operations.md,
   * "Integrity check"): an object under packages/ without a file row, a package without files, a
   * dynamically registered client that never received a grant. Younger ones may still be finishing.
   */
  orphanSweepSeconds: number;
}

/** The configuration cannot be used: the service refuses to serve and says why (src/setup/readiness.ts). */
export type ConfigError = AppError & { details: { problems: string[] } };
export const configRefused = (problems: string[]): ConfigError =>
  new AppError("unavailable", `configuration refused: ${problems.join("; ")}`, { reason: "startup_refused", problems }) as ConfigError;
/** The problems of a refused configuration or first start (src/setup/readiness.ts), else null. */
export function refusedProblems(err: unknown): string[] | null {
  return err instanceof AppError && err.details.reason === "startup_refused" && Array.isArray(err.details.problems) ? (err.details.problems as string[]) : null;
}

const cache = new WeakMap<object, Config | ConfigError>();

export function getConfig(env: Bindings): Config {
  let hit = cache.get(env);
  if (!hit) {
    hit = parseConfig(env as unknown as Record<string, unknown>);
    cache.set(env, hit);
  }
  if (hit instanceof AppError) throw hit;
  return hit;
}

function parseConfig(env: Record<string, unknown>): Config | ConfigError {
  const localDev = env.LOCAL_DEV === "true";
  // The Worker applies the deployed defaults; `npm start` writes its local defaults out explicitly.
  const { values, problems } = checkVariables(env, false);
  problems.push(...secretKeyBaseProblems(values.SECRET_KEY_BASE, localDev));
  if (localDev) values.SECRET_KEY_BASE ??= PUBLISHED_SECRET_KEY_BASE;
  problems.push(...gitOriginSecretProblems(values.GIT_ORIGIN, values.GIT_ORIGIN_SECRET));
  const trusted = parseTrustedIssuers(values.TRUSTED_ID_JAG_ISSUERS ?? "");
  if (typeof trusted === "string") problems.push(trusted);
  if (problems.length || typeof trusted === "string") return configRefused(problems);
  const int = (name: string) => Number(values[name]);
  return {
    serviceVersion: values.SERVICE_VERSION,
    serviceRevision: values.SERVICE_REVISION ?? null,
    allowInsecureRedirects: values.ALLOW_INSECURE_REDIRECTS === "true",
    allowLoopbackClientMetadata: values.ALLOW_LOOPBACK_CLIENT_METADATA === "true",
    gitOrigin: values.GIT_ORIGIN,
    gitOriginSecret: values.GIT_ORIGIN_SECRET ?? "",
    issuer: values.ISSUER,
    trustedIdJagIssuers: trusted,
    accessTokenTtlSeconds: int("ACCESS_TOKEN_TTL_SECONDS"),
    refreshGraceSeconds: int("REFRESH_GRACE_SECONDS"),
    sessionTtlSeconds: int("SESSION_TTL_SECONDS"),
    validationCacheSeconds: int("VALIDATION_CACHE_SECONDS"),
    secretKeyBase: values.SECRET_KEY_BASE,
    previousSecretKeyBases: values.SECRET_KEY_BASE_PREVIOUS ? [values.SECRET_KEY_BASE_PREVIOUS] : [],
    upload: {
      maxFileBytes: int("UPLOAD_MAX_FILE_BYTES"),
      maxPartBytes: int("UPLOAD_MAX_PART_BYTES"),
      maxParts: int("UPLOAD_MAX_PARTS"),
      streamPutMaxBytes: int("UPLOAD_STREAM_PUT_MAX_BYTES"),
    },
    benchRoutes: values.BENCH_ROUTES === "true",
    requestLog: values.REQUEST_LOG !== "false",
    throttle: {
      failedAuth: { limit: int("THROTTLE_FAILED_AUTH_LIMIT"), windowSeconds: int("THROTTLE_FAILED_AUTH_WINDOW_SECONDS"), banSeconds: int("THROTTLE_FAILED_AUTH_BAN_SECONDS") },
      failedBearer: { limit: int("THROTTLE_FAILED_BEARER_LIMIT"), windowSeconds: int("THROTTLE_FAILED_BEARER_WINDOW_SECONDS"), banSeconds: int("THROTTLE_FAILED_BEARER_BAN_SECONDS") },
      accountLock: { limit: int("LOCKOUT_MAX_FAILURES"), windowSeconds: int("LOCKOUT_WINDOW_SECONDS"), banSeconds: int("LOCKOUT_SECONDS") },
    },
    accountGuard: {
      passwordFailures: int("ACCOUNT_GUARD_PASSWORD_FAILURES"),
      twoFactorFailures: int("ACCOUNT_GUARD_TWO_FACTOR_FAILURES"),
      windowSeconds: int("ACCOUNT_GUARD_WINDOW_SECONDS"),
      guardSeconds: int("ACCOUNT_GUARD_SECONDS"),
    },
    seedDemoData: values.SEED_DEMO_DATA === "true",
    localDev,
    clientAddressHeader: (values.CLIENT_ADDRESS_HEADER ?? "").toLowerCase() === "x-forwarded-for" ? "x-forwarded-for" : "cf-connecting-ip",
    mail: { from: values.MAIL_FROM ?? "", httpUrl: values.MAIL_HTTP_URL ?? "", httpKey: values.MAIL_HTTP_KEY ?? "" },
    registry: {
      tokenTtlSeconds: int("REGISTRY_TOKEN_TTL_SECONDS"),
      maxBlobBytes: int("REGISTRY_MAX_BLOB_BYTES"),
      maxManifestBytes: int("REGISTRY_MAX_MANIFEST_BYTES"),
      uploadTtlSeconds: int("REGISTRY_UPLOAD_TTL_SECONDS"),
      projectQuotaBytes: values.REGISTRY_PROJECT_QUOTA_BYTES ? int("REGISTRY_PROJECT_QUOTA_BYTES") : null,
    },
    orphanSweepSeconds: int("ORPHAN_SWEEP_SECONDS"),
  };
}

/** A git origin serves only signed requests, so it is useless without a key both sides hold. */
export interface TrustedIssuer {
  issuer: string;
  jwksUri: string;
}

/** TRUSTED_ID_JAG_ISSUERS: `[{"issuer": "https://idp.example", "jwks_uri": "https://idp.example/jwks"}]`, or a problem. */
function parseTrustedIssuers(text: string): TrustedIssuer[] | string {
  if (text.trim() === "") return [];
  const problem = 'TRUSTED_ID_JAG_ISSUERS must be a JSON array of {"issuer": "<https URL>", "jwks_uri": "<https URL>"}';
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return problem;
  }
  if (!Array.isArray(list) || list.length > 20) return problem;
  const out: TrustedIssuer[] = [];
  for (const entry of list) {
    const e = entry as { issuer?: unknown; jwks_uri?: unknown };
    if (!e || typeof e.issuer !== "string" || typeof e.jwks_uri !== "string" || !/^https?:\/\//.test(e.issuer) || !/^https?:\/\//.test(e.jwks_uri)) return problem;
    out.push({ issuer: e.issuer, jwksUri: e.jwks_uri });
  }
  return out;
}

function gitOriginSecretProblems(origin: string | undefined, secret: string | undefined): string[] {
  if (!origin) return [];
  if (!secret || secret.length < MIN_ORIGIN_SECRET_LENGTH) {
    return [`GIT_ORIGIN is set but GIT_ORIGIN_SECRET is ${secret ? "too short" : "not set"}: set the origin's secret of at least ${MIN_ORIGIN_SECRET_LENGTH} characters (wrangler secret put GIT_ORIGIN_SECRET; docs/deploy.md)`];
  }
  return [];
}

/** A copy of the env with other vars, for tests on each side of a milestone. */
export function withVars(env: Bindings, vars: Partial<Record<keyof Bindings, string>>): Bindings {
  return { ...env, ...vars } as Bindings;
}

/**
 * The access-token lifetime a new application starts with (DESIGN: "2 h default, a per-application
 * setting"): what its creator asked for, else ACCESS_TOKEN_TTL_SECONDS at creation. Changing the
 * variable later leaves existing applications as they are: their own setting wins.
 */
export function newApplicationTtl(env: Bindings, requested?: number): number {
  return requested ?? getConfig(env).accessTokenTtlSeconds;
}

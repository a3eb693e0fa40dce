import { z } from "zod";
import type { Bindings } from "./env";
import type { ThrottlePolicy } from "./throttle/failure-counter";

/**
 * The parsed, validated configuration. Parsed once per isolate per env object, because
 * vars never change while an isolate lives.
 */
const versionPattern = /^\d+\.\d+$/;
const intFrom = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === "" ? fallback : Number(v)))
    .pipe(z.number().int().positive());

const ConfigSchema = z.object({
  SERVICE_VERSION: z
    .string()
    .optional()
    .transform((v) => (v && v !== "" ? v : "16.0"))
    .refine((v) => versionPattern.test(v), "SERVICE_VERSION must be major.minor, for example 15.0"),
  ALLOW_INSECURE_REDIRECTS: z.string().optional().transform((v) => v === "true"),
  GIT_ORIGIN: z.string().optional().transform((v) => v ?? ""),
  ISSUER: z.string().optional().transform((v) => v ?? ""),
  ACCESS_TOKEN_TTL_SECONDS: intFrom(7200),
  REFRESH_GRACE_SECONDS: intFrom(60),
  SESSION_TTL_SECONDS: intFrom(8 * 3600),
  SECRET_KEY_BASE: z.string().optional().transform((v) => v ?? "local-development-secret-key-base-change-me"),
  UPLOAD_MAX_FILE_BYTES: intFrom(100 * 1024 * 1024),
  UPLOAD_MAX_PART_BYTES: intFrom(4 * 1024 * 1024),
  UPLOAD_MAX_PARTS: intFrom(10_000),
  UPLOAD_STREAM_PUT_MAX_BYTES: intFrom(64 * 1024 * 1024),
  BENCH_ROUTES: z.string().optional().transform((v) => v === "true"),
  // Failed authentication per client address (docs/security.md, Throttle): GitLab's Rack::Attack
  // bans an address after repeated failures; a NAT of honest users stays far below 30 a minute.
  THROTTLE_FAILED_AUTH_LIMIT: intFrom(30),
  THROTTLE_FAILED_AUTH_WINDOW_SECONDS: intFrom(60),
  THROTTLE_FAILED_AUTH_BAN_SECONDS: intFrom(900),
  // The account lockout, per account and client address (GitLab: 10 failures, 10 minutes).
  LOCKOUT_MAX_FAILURES: intFrom(10),
  LOCKOUT_WINDOW_SECONDS: intFrom(3600),
  LOCKOUT_SECONDS: intFrom(600),
  REGISTRY_TOKEN_TTL_SECONDS: intFrom(300),
  REGISTRY_MAX_BLOB_BYTES: intFrom(10 * 1024 * 1024 * 1024),
  REGISTRY_MAX_MANIFEST_BYTES: intFrom(4 * 1024 * 1024),
  REGISTRY_UPLOAD_TTL_SECONDS: intFrom(24 * 3600),
});

export interface Config {
  serviceVersion: string;
  allowInsecureRedirects: boolean;
  gitOrigin: string;
  issuer: string;
  accessTokenTtlSeconds: number;
  refreshGraceSeconds: number;
  sessionTtlSeconds: number;
  secretKeyBase: string;
  upload: { maxFileBytes: number; maxPartBytes: number; maxParts: number; streamPutMaxBytes: number };
  benchRoutes: boolean;
  throttle: { failedAuth: ThrottlePolicy; accountLock: ThrottlePolicy };
  /** Container registry limits (docs/registries.md, "Limits"). */
  registry: { tokenTtlSeconds: number; maxBlobBytes: number; maxManifestBytes: number; uploadTtlSeconds: number };
}

const cache = new WeakMap<object, Config>();

export function getConfig(env: Bindings): Config {
  const hit = cache.get(env);
  if (hit) return hit;
  const raw = ConfigSchema.parse(env);
  const config: Config = {
    serviceVersion: raw.SERVICE_VERSION,
    allowInsecureRedirects: raw.ALLOW_INSECURE_REDIRECTS,
    gitOrigin: raw.GIT_ORIGIN,
    issuer: raw.ISSUER,
    accessTokenTtlSeconds: raw.ACCESS_TOKEN_TTL_SECONDS,
    refreshGraceSeconds: raw.REFRESH_GRACE_SECONDS,
    sessionTtlSeconds: raw.SESSION_TTL_SECONDS,
    secretKeyBase: raw.SECRET_KEY_BASE,
    upload: {
      maxFileBytes: raw.UPLOAD_MAX_FILE_BYTES,
      maxPartBytes: raw.UPLOAD_MAX_PART_BYTES,
      maxParts: raw.UPLOAD_MAX_PARTS,
      streamPutMaxBytes: raw.UPLOAD_STREAM_PUT_MAX_BYTES,
    },
    benchRoutes: raw.BENCH_ROUTES,
    throttle: {
      failedAuth: { limit: raw.THROTTLE_FAILED_AUTH_LIMIT, windowSeconds: raw.THROTTLE_FAILED_AUTH_WINDOW_SECONDS, banSeconds: raw.THROTTLE_FAILED_AUTH_BAN_SECONDS },
      accountLock: { limit: raw.LOCKOUT_MAX_FAILURES, windowSeconds: raw.LOCKOUT_WINDOW_SECONDS, banSeconds: raw.LOCKOUT_SECONDS },
    },
    registry: {
      tokenTtlSeconds: raw.REGISTRY_TOKEN_TTL_SECONDS,
      maxBlobBytes: raw.REGISTRY_MAX_BLOB_BYTES,
      maxManifestBytes: raw.REGISTRY_MAX_MANIFEST_BYTES,
      uploadTtlSeconds: raw.REGISTRY_UPLOAD_TTL_SECONDS,
    },
  };
  cache.set(env, config);
  return config;
}

/** A copy of the env with other vars, for tests on each side of a milestone. */
export function withVars(env: Bindings, vars: Partial<Record<keyof Bindings, string>>): Bindings {
  return { ...env, ...vars } as Bindings;
}

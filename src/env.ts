import type { Caller, Principal } from "./credentials/principal";

/** Bindings of the Worker, as declared in wrangler.toml. */
export interface Bindings {
  DB: D1Database;
  FILES: R2Bucket;
  TOKEN_FAMILY: DurableObjectNamespace;
  PLUGIN_TOPIC: DurableObjectNamespace;
  /** Failure counters of the throttle and the account lockout (src/throttle/). */
  FAILURE_COUNTER: DurableObjectNamespace;
  /** One object per personal access token, named by its hash (src/credentials/personal-access-token.ts). */
  PERSONAL_ACCESS_TOKEN: DurableObjectNamespace;
  /** DPoP proofs already used, sharded by key thumbprint (src/credentials/dpop-replay.ts). */
  DPOP_REPLAY: DurableObjectNamespace;
  SERVICE_VERSION?: string;
  ALLOW_INSECURE_REDIRECTS?: string;
  GIT_ORIGIN?: string;
  GIT_ORIGIN_SECRET?: string;
  ISSUER?: string;
  /** Identity providers whose ID-JAGs the jwt-bearer grant accepts (JSON; src/config.ts). */
  TRUSTED_ID_JAG_ISSUERS?: string;
  ROOT_PASSWORD?: string;
  ACCESS_TOKEN_TTL_SECONDS?: string;
  REFRESH_GRACE_SECONDS?: string;
  SESSION_TTL_SECONDS?: string;
  VALIDATION_CACHE_SECONDS?: string;
  /** Key material for values that must be read back (TOTP secrets); never a token. */
  SECRET_KEY_BASE?: string;
  UPLOAD_MAX_FILE_BYTES?: string;
  UPLOAD_MAX_PART_BYTES?: string;
  UPLOAD_MAX_PARTS?: string;
  /** SendFile: files up to this size stream into one R2 put; larger ones use multipart upload. */
  UPLOAD_STREAM_PUT_MAX_BYTES?: string;
  /** "true" mounts the /-/bench routes used by bench/ (never in production). */
  BENCH_ROUTES?: string;
  THROTTLE_FAILED_AUTH_LIMIT?: string;
  THROTTLE_FAILED_AUTH_WINDOW_SECONDS?: string;
  THROTTLE_FAILED_AUTH_BAN_SECONDS?: string;
  THROTTLE_FAILED_BEARER_LIMIT?: string;
  THROTTLE_FAILED_BEARER_WINDOW_SECONDS?: string;
  THROTTLE_FAILED_BEARER_BAN_SECONDS?: string;
  LOCKOUT_MAX_FAILURES?: string;
  LOCKOUT_WINDOW_SECONDS?: string;
  LOCKOUT_SECONDS?: string;
  ACCOUNT_GUARD_PASSWORD_FAILURES?: string;
  ACCOUNT_GUARD_TWO_FACTOR_FAILURES?: string;
  ACCOUNT_GUARD_WINDOW_SECONDS?: string;
  ACCOUNT_GUARD_SECONDS?: string;
  /** Container registry: token lifetime, blob and manifest limits, upload expiry. */
  REGISTRY_TOKEN_TTL_SECONDS?: string;
  REGISTRY_MAX_BLOB_BYTES?: string;
  REGISTRY_MAX_MANIFEST_BYTES?: string;
  REGISTRY_UPLOAD_TTL_SECONDS?: string;
  ORPHAN_SWEEP_SECONDS?: string;
  REGISTRY_PROJECT_QUOTA_BYTES?: string;
  /** "true" (npm start) seeds the demo data once. */
  SEED_DEMO_DATA?: string;
  /** Decrypts and verifies (never signs) during a SECRET_KEY_BASE rotation. */
  SECRET_KEY_BASE_PREVIOUS?: string;
  /** The build's revision shown by /api/v4/version (for example a git commit). */
  SERVICE_REVISION?: string;
  /** "true" only under `npm start` and the test pool: development fallbacks are allowed. */
  LOCAL_DEV?: string;
  /** "CF-Connecting-IP" or "X-Forwarded-For" behind a proxy the operator runs (src/http/client-address.ts). */
  CLIENT_ADDRESS_HEADER?: string;
  /** Mail (src/mail/): the sender, and an HTTP mail API by URL and key. */
  MAIL_FROM?: string;
  MAIL_HTTP_URL?: string;
  MAIL_HTTP_KEY?: string;
  /** Cloudflare's send_email binding, when wrangler.toml declares one (docs/deploy.md, "Mail"). */
  SEND_EMAIL?: SendEmail;
}

/** Per-request variables set by middleware. */
export interface Variables {
  principal: Principal;
  /** Who the request acts for, as the front door admitted it (src/credentials/front-door.ts). */
  caller: Caller;
  /** X-Request-Id of this request (src/observability/request-log.ts). */
  requestId: string;
  /** The signed-in user of a page request, for the request log line. */
  sessionUserId?: number;
}

export type AppEnv = { Bindings: Bindings; Variables: Variables };

import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import app from "../../src/app";
import { getConfig, withVars } from "../../src/config";
import { PUBLISHED_SECRET_KEY_BASE } from "../../src/config-variables";
import { getDb } from "../../src/db/client";
import { users } from "../../src/db/schema/accounts";
import type { Bindings } from "../../src/env";

const db = getDb(env.DB);
const STRONG_KEY = "0123456789abcdef0123456789abcdef0123456789abcdef";

/** A deployed Worker: no LOCAL_DEV, so no development fallbacks. */
function deployed(vars: Partial<Record<keyof Bindings, string>>): Bindings {
  return withVars(env, { LOCAL_DEV: "", SECRET_KEY_BASE: "", ...vars });
}

async function get(e: Bindings, path = "/-/health"): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`http://svc.test${path}`), e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("safe production start: no fallback to a published SECRET_KEY_BASE", () => {
  beforeEach(async () => {
    await db.run(sql`DELETE FROM users`);
  });

  it("refuses to serve with 503 and a plain explanation when SECRET_KEY_BASE is missing outside local development", async () => {
    const res = await get(deployed({ ROOT_PASSWORD: "a-Strong-root-pass-1" }));
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toContain("text/plain");
    expect(await res.text()).toContain("SECRET_KEY_BASE is not set");
  });

  it("refuses the published development SECRET_KEY_BASE and a short one, and never echoes the value", async () => {
    const published = await get(deployed({ SECRET_KEY_BASE: PUBLISHED_SECRET_KEY_BASE, ROOT_PASSWORD: "a-Strong-root-pass-1" }));
    expect(published.status).toBe(503);
    const text = await published.text();
    expect(text).toContain("published development value");
    expect(text).not.toContain(PUBLISHED_SECRET_KEY_BASE);
    const short = await get(deployed({ SECRET_KEY_BASE: "tooshort-key", ROOT_PASSWORD: "a-Strong-root-pass-1" }));
    expect(short.status).toBe(503);
    const shortText = await short.text();
    expect(shortText).toContain("too short");
    expect(shortText).not.toContain("tooshort-key");
  });

  it("refuses a first start without ROOT_PASSWORD outside local development, and creates no user", async () => {
    const res = await get(deployed({ SECRET_KEY_BASE: STRONG_KEY }));
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("ROOT_PASSWORD is not set");
    expect(await db.select().from(users)).toHaveLength(0);
  });

  it("refuses a weak ROOT_PASSWORD on a first start outside local development", async () => {
    const res = await get(deployed({ SECRET_KEY_BASE: STRONG_KEY, ROOT_PASSWORD: "password" }));
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("ROOT_PASSWORD is refused");
  });

  it("serves once SECRET_KEY_BASE is strong and root exists; ROOT_PASSWORD may then be removed", async () => {
    const first = await get(deployed({ SECRET_KEY_BASE: STRONG_KEY, ROOT_PASSWORD: "a-Strong-root-pass-1" }));
    expect(first.status).toBe(200);
    expect(await first.text()).toBe("GitLab OK");
    const later = await get(deployed({ SECRET_KEY_BASE: STRONG_KEY }));
    expect(later.status).toBe(200);
  });

  it("a SECRET_KEY_BASE that is set is held to the same length in local development (LOCAL_DEV=true) as deployed: one check for npm start and the Worker", async () => {
    const res = await get(withVars(env, { LOCAL_DEV: "true", SECRET_KEY_BASE: "short" }));
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("SECRET_KEY_BASE is too short");
  });

  it("local development (LOCAL_DEV=true) keeps the development fallback", () => {
    const config = getConfig(withVars(env, { LOCAL_DEV: "true", SECRET_KEY_BASE: "" }));
    expect(config.secretKeyBase).toBe(PUBLISHED_SECRET_KEY_BASE);
  });
});

describe("malformed configuration: a clear error, not a crash loop", () => {
  it.each([
    ["ACCESS_TOKEN_TTL_SECONDS", "two hours", "ACCESS_TOKEN_TTL_SECONDS=\"two hours\" must be a positive whole number"],
    ["SERVICE_VERSION", "16", "SERVICE_VERSION=\"16\" must be major.minor"],
    ["SERVICE_VERSION", "17.3", "SERVICE_VERSION=\"17.3\" is not a version of the schedule: use one of 13.0 to 13.12, 14.0 to 14.10, 15.0 to 15.11, 16.0"],
    ["SECRET_KEY_BASE", "short", "SECRET_KEY_BASE is too short"],
    ["ALLOW_INSECURE_REDIRECTS", "yes please", "must be \"true\" or \"false\""],
    ["ISSUER", "auth.example.com", "ISSUER=\"auth.example.com\" must be an absolute http(s) URL"],
  ])("%s=%s answers 503 naming the variable on every route", async (name, value, message) => {
    const e = withVars(env, { [name]: value } as Partial<Record<keyof Bindings, string>>);
    for (const path of ["/-/health", "/api/v4/user", "/users/sign_in"]) {
      const res = await get(e, path);
      expect(res.status).toBe(503);
      expect(await res.text()).toContain(message);
    }
  });
});

describe("configuration table: every variable takes effect", () => {
  it("reads each documented Worker variable into the configuration", () => {
    const c = getConfig(
      withVars(env, {
        SERVICE_VERSION: "15.0",
        SERVICE_REVISION: "abc1234",
        ALLOW_INSECURE_REDIRECTS: "true",
        GIT_ORIGIN: "https://git.example.com",
        ISSUER: "https://auth.example.com",
        ACCESS_TOKEN_TTL_SECONDS: "600",
        REFRESH_GRACE_SECONDS: "5",
        SESSION_TTL_SECONDS: "900",
        SECRET_KEY_BASE_PREVIOUS: "an-older-key-an-older-key-an-older-key",
        UPLOAD_MAX_FILE_BYTES: "1000",
        UPLOAD_MAX_PART_BYTES: "100",
        UPLOAD_MAX_PARTS: "10",
        UPLOAD_STREAM_PUT_MAX_BYTES: "500",
        SEED_DEMO_DATA: "true",
        BENCH_ROUTES: "true",
      }),
    );
    expect(c).toMatchObject({
      serviceVersion: "15.0",
      serviceRevision: "abc1234",
      allowInsecureRedirects: true,
      gitOrigin: "https://git.example.com",
      issuer: "https://auth.example.com",
      accessTokenTtlSeconds: 600,
      refreshGraceSeconds: 5,
      sessionTtlSeconds: 900,
      previousSecretKeyBases: ["an-older-key-an-older-key-an-older-key"],
      upload: { maxFileBytes: 1000, maxPartBytes: 100, maxParts: 10, streamPutMaxBytes: 500 },
      seedDemoData: true,
      benchRoutes: true,
    });
  });
});

import { DurableObject } from "cloudflare:workers";
import { getDb } from "../db/client";
import { findPersonalAccessTokenByHash, isPatExpired } from "../db/personal-access-tokens";
import type { UserRow } from "../db/users";
import type { Bindings } from "../env";
import { userSnapshot, type SinceVouched } from "./token-family";
import { parseScopes } from "../domain/scopes";

/**
 * The state of one personal access token on the one-hop path (docs/credentials.md): one object per
 * token, addressed by the SHA-256 of the token, which the Worker computes anyway. D1 stays the
 * directory (listing, names, last use) and the source the object loads itself from on first use,
 * so tokens created before this object existed work unchanged. Revocation writes D1 and then this
 * object, so once it answers no request with the token succeeds; the copy of the user is refreshed
 * from D1 at most every `userTtlMs` and dropped at once by userChanged().
 */
export interface PatState {
  hash: string;
  id: number;
  userId: number;
  scopes: string[];
  /** YYYY-MM-DD; valid through the end of that UTC day (GitLab). */
  expiresAt: string;
  revoked: boolean;
  lastUsedAt: number | null;
  /** The user row without password hash and two-factor secrets, and when it was read. */
  user: { row: UserRow; at: number } | null;
}

export type PatCheck =
  | { ok: true; id: number; scopes: string[]; expiresAt: string; user: UserRow; touch: boolean }
  | { ok: false; reason: "invalid" | "revoked" | "expired" | "blocked" };

const STATE = "state";
/** Revoked before the object ever loaded its state: a load must not bring the token back. */
const REVOKED = "revoked";

export class PersonalAccessTokenState extends DurableObject<Bindings> {
  /** One D1 read at a time: concurrent requests on a cold or stale object share it. */
  private loading: Promise<PatState | null> | null = null;
  /**
   * When this object last vouched for its token (the validation cache, DESIGN "Validation cache").
   * Memory only: a new instance counts from its construction, after any former instance's answer.
   */
  private lastVouch = Date.now();

  /** How long ago the token may last have been vouched for; null: never (no state was ever loaded). */
  private sinceVouched(): SinceVouched {
    return this.load() ? Math.max(0, Date.now() - this.lastVouch) : null;
  }

  private load(): PatState | undefined {
    return this.ctx.storage.kv.get<PatState>(STATE);
  }

  private save(s: PatState): void {
    this.ctx.storage.kv.put(STATE, s);
  }

  async validate(input: { tokenHash: string; now: number; userTtlMs: number; touchEveryMs: number }): Promise<PatCheck> {
    let s = this.load();
    if (!s || s.hash !== input.tokenHash || !s.user || input.now - s.user.at >= input.userTtlMs) {
      s = (await this.reload(input.tokenHash, input.now)) ?? undefined;
    }
    if (!s || !s.user) return { ok: false, reason: "invalid" };
    if (s.revoked) return { ok: false, reason: "revoked" };
    if (isPatExpired(s.expiresAt, input.now)) return { ok: false, reason: "expired" };
    if (s.user.row.state !== "active") return { ok: false, reason: "blocked" };
    // GitLab records last use at most every 10 minutes: the Worker writes D1 after the response.
    const touch = s.lastUsedAt === null || input.now - s.lastUsedAt > input.touchEveryMs;
    if (touch) {
      s.lastUsedAt = input.now;
      this.save(s);
    }
    this.lastVouch = Date.now();
    return { ok: true, id: s.id, scopes: s.scopes, expiresAt: s.expiresAt, user: s.user.row, touch };
  }

  /** Reads the token and its user from D1, merged with what this object knows (a revocation wins). */
  private reload(tokenHash: string, now: number): Promise<PatState | null> {
    this.loading ??= (async () => {
      const found = await findPersonalAccessTokenByHash(getDb(this.env.DB), tokenHash);
      // Read after the await: a revocation may have arrived while D1 answered.
      const current = this.load();
      if (!found) return null;
      const next: PatState = {
        hash: tokenHash,
        id: found.pat.id,
        userId: found.pat.userId,
        scopes: parseScopes(found.pat.scopes),
        expiresAt: found.pat.expiresAt,
        revoked: found.pat.revoked || current?.revoked === true || this.ctx.storage.kv.get(REVOKED) === true,
        lastUsedAt: Math.max(found.pat.lastUsedAt ?? 0, current?.lastUsedAt ?? 0) || null,
        user: { row: userSnapshot(found.user), at: now },
      };
      this.save(next);
      return next;
    })().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  /**
   * The token is revoked (D1 already says so): refused from now on, loaded or not. Answers how long
   * ago it was last vouched for, which the revoking side waits out (validation-cache.ts).
   */
  revoke(): SinceVouched {
    const s = this.load();
    if (s) {
      s.revoked = true;
      this.save(s);
    } else {
      this.ctx.storage.kv.put(REVOKED, true);
    }
    return this.sinceVouched();
  }

  /** The user changed: the next request reads the row from D1. Answers as revoke() does. */
  dropUser(): SinceVouched {
    const s = this.load();
    if (s?.user) {
      s.user = null;
      this.save(s);
    }
    return this.sinceVouched();
  }
}

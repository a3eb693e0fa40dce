import { DurableObject } from "cloudflare:workers";
import { recordQueuedAudits } from "../db/audit";
import { getDb } from "../db/client";
import { grantEnded } from "../db/grant-holder";
import { deletePendingFamilyRow } from "../db/oauth-grants";
import type { UserRow } from "../db/users";
import { DEFAULT_RESOURCE } from "../domain/resources";
import type { Bindings } from "../env";
import {
  bindResource,
  codeRequestRefusal,
  mayReceiveTokens,
  setPair,
  userSnapshot,
  type ExchangeResult,
  type FamilyState,
  type FamilyView,
  type NewPair,
  type QueuedAudit,
  type RevokeResult,
  type RotateResult,
  type SinceVouched,
  type ValidateResult,
} from "./token-family-state";

export * from "./token-family-state";

const STATE = "state";
const OLD_PREFIX = "old:";
const AUDIT_PREFIX = "audit:";
/**
 * Routine rotations are audited in D1 in batches: the event is queued here with the rotation (same
 * atomic call) and flushed by an alarm, so a rotation costs one storage write, not a D1 write too.
 */
const AUDIT_FLUSH_MS = 5_000;

/**
 * The state of one grant's tokens (DESIGN, Refresh tokens 1): code, current access/refresh pair,
 * the grace record of the last rotation, and revocation. Every method body is synchronous (the
 * SQLite-backed sync KV API, no await), so each call is atomic: concurrent exchanges and refreshes
 * are serialised without locks. Hashing, token generation and sealing happen in the Worker before
 * the call, for the same reason. Only SHA-256 hashes and sealed (encrypted) values are stored.
 */
export class TokenFamily extends DurableObject<Bindings> {
  /** An audit flush is scheduled (memory only: after eviction the next rotation re-arms, harmlessly). */
  private auditArmed = false;
  /**
   * When this object last vouched for an access token (the validation cache, DESIGN "Validation
   * cache"). Memory only: a new instance cannot know what an evicted one answered, so it counts
   * from its own construction, which is after any answer of a former instance.
   */
  private lastVouch = Date.now();

  /** How long ago a token of this family may last have been vouched for; null: never. */
  private sinceVouched(s: FamilyState | undefined): SinceVouched {
    // A used current token, or any rotation (the replaced access token may have been used).
    if (!s || (!s.access?.used && s.grace === null)) return null;
    return Math.max(0, Date.now() - this.lastVouch);
  }

  private load(): FamilyState | undefined {
    return this.ctx.storage.kv.get<FamilyState>(STATE);
  }

  private save(s: FamilyState): void {
    this.ctx.storage.kv.put(STATE, s);
  }

  private view(s: FamilyState): FamilyView {
    return {
      id: s.id,
      userId: s.userId,
      applicationId: s.applicationId,
      applicationUid: s.applicationUid,
      scopes: s.scopes,
      grantType: s.grantType,
      ttlSeconds: s.ttlSeconds,
      createdAt: s.createdAt,
      accessCreatedAt: s.access?.createdAt ?? s.createdAt,
      accessExpiresAt: s.access?.expiresAt ?? null,
      oidc: s.oidc ?? null,
      resource: s.accessResource ?? s.resource ?? DEFAULT_RESOURCE,
      jkt: s.access?.jkt ?? null,
      act: s.act ?? null,
    };
  }

  /** Creates the family once (at code issue, implicit grant or password grant). */
  init(state: FamilyState): boolean {
    if (this.load()) return false;
    this.save(state);
    // A code nobody exchanges must not keep its object (and directory row) forever.
    if (state.code) void this.ctx.storage.setAlarm(state.code.expiresAt + 1000);
    return true;
  }

  private queueAudit(event: QueuedAudit): void {
    const kv = this.ctx.storage.kv;
    kv.put(`${AUDIT_PREFIX}${String(event.createdAt).padStart(15, "0")}:${crypto.randomUUID()}`, event);
    if (!this.auditArmed) {
      this.auditArmed = true;
      void this.ctx.storage.setAlarm(event.createdAt + AUDIT_FLUSH_MS);
    }
  }

  /** Flushes queued audit events to D1; removes a code nobody exchanged once it has expired. */
  async alarm(): Promise<void> {
    const kv = this.ctx.storage.kv;
    const queued = [...kv.list<QueuedAudit>({ prefix: AUDIT_PREFIX })];
    if (queued.length > 0) {
      // A failure throws: the alarm is retried and the events stay queued.
      await recordQueuedAudits(
        getDb(this.env.DB),
        queued.map(([, e]) => ({ ...e, entityType: "oauth_token_family" })),
      );
      for (const [key] of queued) kv.delete(key);
    }
    this.auditArmed = false;
    const s = this.load();
    if (!s || !s.code || s.code.usedAt !== null) return;
    if (s.code.expiresAt > Date.now()) {
      void this.ctx.storage.setAlarm(s.code.expiresAt + 1000);
      return;
    }
    kv.delete(STATE);
    await deletePendingFamilyRow(getDb(this.env.DB), s.id);
  }

  /** POST /oauth/token grant_type=authorization_code: the request's checks (codeRequestRefusal), then single use. */
  exchangeCode(input: {
    codeHash: string;
    applicationId: number;
    /** False when the client only named itself (client_id): allowed for PKCE grants alone. */
    clientAuthenticated: boolean;
    redirectUri: string;
    /** S256 of the presented code_verifier, or null when none was sent. */
    verifierChallenge: string | null;
    pair: NewPair;
    /** From 15.0 every new token expires (gate oauth-tokens-without-expiry). */
    forceExpiry: boolean;
    now: number;
    /** Read from D1 for this exchange: who the tokens would go to, and the cutoff of pending changes that end this grant (src/db/grant-holder.ts). */
    user: Pick<UserRow, "state"> | null;
    grantsEndedBefore: number | null;
    /** RFC 8707: the resource named in the token request (a path), or null for the authorized one. */
    resource: string | null;
    /** RFC 9449: the thumbprint of the token request's DPoP proof key; null without a proof. */
    dpopJkt?: string | null;
  }): ExchangeResult {
    const s = this.load();
    const refuse = (reason: string, reuse = false): ExchangeResult => ({ ok: false, error: "invalid_grant", reason, reuse });
    if (!s || !s.code || s.code.hash !== input.codeHash) return refuse("unknown code");
    const refused = codeRequestRefusal(s, input);
    if (refused) return refused;
    if (s.code.usedAt !== null || s.revokedAt !== null) {
      // A replayed code: refuse it and revoke what was issued from it (DESIGN, /oauth/authorize).
      if (s.revokedAt === null) {
        s.revokedAt = input.now;
        this.save(s);
      }
      return { ok: false, error: "invalid_grant", reason: "code already used", reuse: true, sinceVouched: this.sinceVouched(s) };
    }
    if (s.code.expiresAt <= input.now) return refuse("code expired");
    // RFC 9449 §10: a code bound with dpop_jkt is exchanged only with a proof of that key.
    if (s.code.dpopJkt && s.code.dpopJkt !== (input.dpopJkt ?? null)) return refuse("DPoP proof key does not match dpop_jkt");
    // The code stays unused: a deactivated user's code works again if activated within its life.
    if (!mayReceiveTokens(input.user)) return refuse("user not active");
    if (grantEnded(s.createdAt, input.grantsEndedBefore)) return refuse("a pending change ends this grant; its revocation is on the way");
    // Refused before the code is used, so the client may retry with the resource it was granted.
    if (!bindResource(s, input.resource)) return { ok: false, error: "invalid_target", reason: "resource not authorized" };
    s.code.usedAt = input.now;
    setPair(s, input.pair, input.forceExpiry, input.dpopJkt ?? null, !input.clientAuthenticated);
    this.save(s);
    return { ok: true, family: this.view(s) };
  }

  /**
   * POST /oauth/token grant_type=refresh_token: DESIGN, Refresh tokens 2-4. `sealed` is the new
   * pair encrypted under a key derived from the presented refresh token; it is kept for the grace
   * window and handed back (still sealed) to a retry of the same refresh token.
   */
  rotate(input: {
    refreshHash: string;
    /** The client_id presented (the application uid). */
    clientId: string;
    clientAuthenticated: boolean;
    redirectUri: string | null;
    verifierChallenge: string | null;
    pair: NewPair;
    forceExpiry: boolean;
    sealed: string;
    now: number;
    graceMs: number;
    ip: string | null;
    /** The user row read from D1, or null to use the family's snapshot if younger than userMaxAgeMs. */
    user: UserRow | null;
    /** With `user`: the cutoff of pending changes that end this grant (src/db/grant-holder.ts). */
    grantsEndedBefore?: number | null;
    userMaxAgeMs: number;
    /** RFC 8707: the resource named in the refresh request (a path), or null for the authorized one. */
    resource: string | null;
    /** RFC 9449: the thumbprint of the refresh request's DPoP proof key; null without a proof. */
    dpopJkt?: string | null;
  }): RotateResult {
    const s = this.load();
    const refuse = (reason: string, reuse = false): RotateResult => ({ ok: false, error: "invalid_grant", reason, reuse });
    if (!s) return refuse("unknown refresh token");
    const current = s.refreshHash !== null && s.refreshHash === input.refreshHash;
    const inGrace = s.grace !== null && s.grace.prevRefreshHash === input.refreshHash;
    const superseded = !current && (inGrace || this.ctx.storage.kv.get(OLD_PREFIX + input.refreshHash) !== undefined);
    if (!current && !superseded) return refuse("unknown refresh token");
    if (s.applicationUid !== input.clientId) return refuse("refresh token issued to another client");
    if (!input.clientAuthenticated && s.challenge === null && !s.publicRefresh) return { ok: false, error: "invalid_client", reason: "client secret required" };
    if (input.redirectUri !== null && s.redirectUri !== input.redirectUri) return refuse("redirect_uri mismatch");
    if (input.verifierChallenge !== null && s.challenge !== input.verifierChallenge) return refuse("code_verifier mismatch");
    // RFC 9449 §5: a bound refresh token without a proof of its key is refused, and cannot be
    // used to trigger the reuse detection below either.
    if (s.refreshJkt && s.refreshJkt !== (input.dpopJkt ?? null)) return refuse("refresh token bound to another DPoP key");
    if (s.revokedAt !== null) return refuse("family revoked");
    // The user's state, checked in the same atomic call that would issue: from the snapshot when it
    // is young (one hop), else the caller reads D1 and calls again. Refused without any change, so
    // a deactivated user's grant works again after activation (GitLab); a block revokes it anyway.
    if (input.user) s.user = { row: userSnapshot(input.user), at: input.now, grantsEndedBefore: input.grantsEndedBefore ?? null };
    else if (!s.user || input.now - s.user.at >= input.userMaxAgeMs) return { ok: false, error: "user_needed", applicationId: s.applicationId };
    if (s.user.row.id !== s.userId) return refuse("unknown user");
    // A pending change ends this grant (a block, an application's deletion, ...): its own
    // revocation has not been reached yet (src/db/grant-holder.ts).
    if (grantEnded(s.createdAt, s.user.grantsEndedBefore)) {
      if (input.user) this.save(s);
      return refuse("grant ended");
    }
    if (!mayReceiveTokens(s.user.row)) {
      if (input.user) this.save(s);
      return refuse("user not active");
    }
    if (superseded) {
      if (inGrace && s.grace!.until > input.now && !s.access?.used) {
        return { ok: true, kind: "grace", sealed: s.grace!.sealed, family: this.view(s) };
      }
      // Reuse of a superseded refresh token (RFC 9700 §4.14): the whole family dies.
      s.revokedAt = input.now;
      this.save(s);
      return { ok: false, error: "invalid_grant", reason: "refresh token reuse", reuse: true, family: this.view(s), sinceVouched: this.sinceVouched(s) };
    }
    if (!bindResource(s, input.resource)) return { ok: false, error: "invalid_target", reason: "resource not authorized" };
    // Read before the pair changes: the replaced access token is what an isolate may still remember,
    // and only if it was ever vouched for (used). Tokens replaced by earlier rotations were waited
    // out by those rotations, so a chain of refreshes of unused tokens never waits.
    const sinceVouched: SinceVouched = s.access?.used ? Math.max(0, Date.now() - this.lastVouch) : null;
    this.ctx.storage.kv.put(OLD_PREFIX + input.refreshHash, input.now);
    // The replaced access token is remembered too: revoking it later must still find the grant.
    if (s.access) this.ctx.storage.kv.put(OLD_PREFIX + s.access.hash, input.now);
    s.grace = { prevRefreshHash: input.refreshHash, until: input.now + input.graceMs, sealed: input.sealed };
    setPair(s, input.pair, input.forceExpiry, input.dpopJkt ?? null, !input.clientAuthenticated);
    this.save(s);
    this.queueAudit({
      action: "token_refreshed",
      authorId: s.userId,
      entityId: s.id,
      details: { application_id: s.applicationId },
      ip: input.ip,
      createdAt: input.now,
    });
    return { ok: true, kind: "rotated", family: this.view(s), sinceVouched };
  }

  /**
   * Validates an access token by hash. `fillExpiry` (from 15.0): a stored token without expiry
   * gets one, counted from its creation (spec, Versioning), and keeps it from then on.
   */
  validateAccess(input: { accessHash: string; now: number; fillExpiry: boolean; withUser?: boolean }): ValidateResult {
    const s = this.load();
    if (!s || !s.access || s.access.hash !== input.accessHash) {
      return { ok: false, reason: "invalid" };
    }
    if (s.revokedAt !== null) return { ok: false, reason: "revoked" };
    let dirty = false;
    if (input.fillExpiry && s.access.expiresAt === null) {
      s.access.expiresAt = s.access.createdAt + s.ttlSeconds * 1000;
      dirty = true;
    }
    if (s.access.expiresAt !== null && s.access.expiresAt <= input.now) {
      if (dirty) this.save(s);
      return { ok: false, reason: "expired" };
    }
    if (!s.access.used) {
      s.access.used = true;
      dirty = true;
    }
    if (dirty) this.save(s);
    this.lastVouch = Date.now();
    // The user snapshot crosses the RPC boundary only for callers that use it.
    return { ok: true, family: input.withUser ? { ...this.view(s), user: s.user ?? null } : this.view(s) };
  }

  /** Stores a fresh user snapshot and its cutoff (after a D1 read, src/db/grant-holder.ts), unless a newer one is already there. */
  putUser(row: UserRow, at: number, grantsEndedBefore: number | null = null): void {
    const s = this.load();
    if (!s || s.userId !== row.id || (s.user && s.user.at >= at)) return;
    s.user = { row: userSnapshot(row), at, grantsEndedBefore };
    this.save(s);
  }

  /**
   * The user changed (blocked, admin flag, profile, two-factor): the next request reads D1. Answers
   * how long ago a token was last vouched for, for a caller that takes access away.
   */
  dropUser(): SinceVouched {
    const s = this.load();
    if (s?.user) {
      s.user = null;
      this.save(s);
    }
    return this.sinceVouched(s);
  }

  /**
   * RFC 7009 §2.1 (DESIGN, Revocation): any token ever issued in the grant, current or superseded
   * (an old refresh token a client still holds, an old access token), revokes the whole family.
   * Rotation and revocation are serialised here, so a revoke racing a refresh with the same token
   * finds it either current or superseded, and the family dies either way. A token of another
   * client is reported as foreign (403 unauthorized_client); anything else as unknown.
   */
  revokeToken(input: { tokenHash: string; applicationId: number | null; now: number }): { result: RevokeResult; sinceVouched: SinceVouched } {
    const s = this.load();
    const answer = (result: RevokeResult) => ({ result, sinceVouched: result === "revoked" ? this.sinceVouched(s) : null });
    if (!s) return answer("unknown");
    const known =
      s.access?.hash === input.tokenHash ||
      s.refreshHash === input.tokenHash ||
      s.grace?.prevRefreshHash === input.tokenHash ||
      this.ctx.storage.kv.get(OLD_PREFIX + input.tokenHash) !== undefined;
    if (!known) return answer("unknown");
    // Doorkeeper: a token without an application (password grant without client) may be revoked
    // by any authenticated client that holds it.
    if (s.applicationId !== null && s.applicationId !== input.applicationId) return answer("foreign");
    if (s.revokedAt === null) {
      s.revokedAt = input.now;
      this.save(s);
    }
    return answer("revoked");
  }

  /**
   * Revokes the family whatever token is presented (user or application revocation); answers how
   * long ago a token was last vouched for (null: never, or no such family).
   */
  revokeAll(now: number): SinceVouched {
    const s = this.load();
    if (!s) return null;
    if (s.revokedAt === null) {
      s.revokedAt = now;
      this.save(s);
    }
    return this.sinceVouched(s);
  }

  /**
   * Whether the answer that issued this access token may be given again (a device code's retried
   * poll, src/oauth/grants/device-code.ts): "absent" when the family was never created (the first
   * poll died before), "unused" while that token is still the family's, unused and not revoked,
   * else "spent" (used, rotated or revoked: the client did receive it, so no second copy).
   */
  issueState(accessHash: string): "absent" | "unused" | "spent" {
    const s = this.load();
    if (!s) return "absent";
    return s.revokedAt === null && s.access?.hash === accessHash && !s.access.used && s.grace === null ? "unused" : "spent";
  }

  /** Whether the family is revoked (null: no such family), for the integrity check's comparison with the D1 directory. */
  isRevoked(): boolean | null {
    const s = this.load();
    return s ? s.revokedAt !== null : null;
  }

  /** Introspection and token info for a hash (either token), without side effects. */
  describe(input: { tokenHash: string; now: number; fillExpiry: boolean }): (FamilyView & { tokenType: "access_token" | "refresh_token"; active: boolean }) | null {
    const s = this.load();
    if (!s) return null;
    const isAccess = s.access?.hash === input.tokenHash;
    const isRefresh = s.refreshHash !== null && s.refreshHash === input.tokenHash;
    if (!isAccess && !isRefresh) return null;
    const view = this.view(s);
    if (input.fillExpiry && view.accessExpiresAt === null) view.accessExpiresAt = view.accessCreatedAt + s.ttlSeconds * 1000;
    const expired = isAccess && view.accessExpiresAt !== null && view.accessExpiresAt <= input.now;
    // The user snapshot rides along, so introspection needs no D1 read of the user while it is young.
    return { ...view, user: s.user ?? null, tokenType: isAccess ? "access_token" : "refresh_token", active: s.revokedAt === null && !expired };
  }

  /** Benchmark floor costs (bench/): one storage read, one storage write. */
  benchRead(): number {
    return this.ctx.storage.kv.get<number>("bench") ?? 0;
  }

  benchWrite(): number {
    const n = (this.ctx.storage.kv.get<number>("bench") ?? 0) + 1;
    this.ctx.storage.kv.put("bench", n);
    return n;
  }
}

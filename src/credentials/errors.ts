/**
 * Why a token was not accepted. Each API family renders these in its own shape
 * (REST: 401 message / invalid_token; Connect: unauthenticated; git: 401 Basic).
 */
export type AuthFailure = "missing" | "invalid" | "expired" | "revoked" | "blocked";

export class AuthError extends Error {
  constructor(readonly reason: AuthFailure) {
    super(`token ${reason}`);
    this.name = "AuthError";
  }
}

export class ScopeError extends Error {
  constructor(readonly accepted: readonly string[]) {
    super("insufficient scope");
    this.name = "ScopeError";
  }
}

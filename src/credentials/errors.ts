import { AppError } from "../domain/errors";

/**
 * Why a token was not accepted. Each API family renders these in its own shape
 * (REST: 401 message / invalid_token; Connect: unauthenticated; git: 401 Basic).
 */
export type AuthFailure = "missing" | "invalid" | "expired" | "revoked" | "blocked";

export class AuthError extends AppError {
  constructor(readonly reason: AuthFailure) {
    super("unauthenticated", `token ${reason}`, { reason });
    this.name = "AuthError";
  }
}

export class ScopeError extends AppError {
  constructor(readonly accepted: readonly string[]) {
    super("forbidden", "insufficient scope", { scope: accepted.join(" ") });
    this.name = "ScopeError";
  }
}

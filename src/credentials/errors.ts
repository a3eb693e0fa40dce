import { AppError } from "../domain/errors";

/**
 * Why a token was not accepted. Each API family renders these in its own shape
 * (REST: 401 message / invalid_token; Connect: unauthenticated; git: 401 Basic).
 */
export type AuthFailure = "missing" | "invalid" | "expired" | "revoked" | "blocked";

export type DpopErrorCode = "invalid_dpop_proof" | "invalid_token" | "use_dpop_nonce";

/** Why a DPoP proof or binding was refused; `nonce`: the DPoP-Nonce to send with a use_dpop_nonce. */
export interface DpopRefusal {
  error: DpopErrorCode;
  description: string;
  nonce?: string;
}

export class AuthError extends AppError {
  /** `dpop`: set when DPoP refused the request (dpopError in ./dpop-proof), rendered as a DPoP challenge. */
  constructor(
    readonly reason: AuthFailure,
    readonly dpop?: DpopRefusal,
  ) {
    super("unauthenticated", `token ${reason}`, { reason });
    this.name = "AuthError";
  }
}

/**
 * A valid token that acts for no user (client_credentials, RFC 6749 §4.4) on a route that acts for
 * one: 403 with a message saying so, in each family's shape (REST `{"message"}`, GraphQL errors).
 */
export function noUserError(): AppError {
  return new AppError(
    "forbidden",
    "This token was issued to an application by the client_credentials grant and acts for no user; this endpoint needs a user's token",
    { reason: "no_user" },
  );
}

export class ScopeError extends AppError {
  constructor(readonly accepted: readonly string[]) {
    super("forbidden", "insufficient scope", { scope: accepted.join(" ") });
    this.name = "ScopeError";
  }
}

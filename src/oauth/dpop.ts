import type { Context } from "hono";
import { currentNonce } from "../credentials/dpop-nonce";
import { isDpopError, verifyProof } from "../credentials/dpop-proof";
import { consumeProof } from "../credentials/dpop-replay";
import type { AppEnv } from "../env";
import { OAuthError } from "./errors";

/**
 * DPoP at the token endpoint and PAR (RFC 9449 §5, §8): the request's proof, if it sent one, is
 * checked and used up before anything is issued, and the thumbprint of its key is what the
 * grant binds the tokens to. Every answer to a request with a proof carries the current
 * `DPoP-Nonce` (§8.2), so a client always holds the nonce to put in its next proof.
 */
export async function tokenRequestProof(c: Context<AppEnv>): Promise<string | null> {
  if (!c.req.raw.headers.has("dpop")) return null;
  c.header("DPoP-Nonce", await currentNonce(c.env));
  try {
    const proof = await verifyProof(c.env, c.req.raw);
    await consumeProof(c.env, proof);
    return proof.jkt;
  } catch (err) {
    if (isDpopError(err)) throw new OAuthError(err.dpop.error === "use_dpop_nonce" ? "use_dpop_nonce" : "invalid_dpop_proof", err.dpop.description);
    throw err;
  }
}

/** An application that requires DPoP (RFC 9449 §5.2, dpop_bound_access_tokens) gets no bearer token. */
export function requireProofFor(app: { dpopBoundAccessTokens?: boolean } | null, jkt: string | null): void {
  if (app?.dpopBoundAccessTokens && !jkt) throw new OAuthError("invalid_dpop_proof", "This client requires DPoP-bound access tokens: send a DPoP proof.");
}

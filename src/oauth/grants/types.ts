import type { Bindings } from "../../env";
import type { TokenResponse } from "../issue";
import type { AuthenticatedClient, ClientCredentials, Params } from "../request";
import type { ClientMode } from "./client";

export interface GrantContext {
  env: Bindings;
  params: Params;
  creds: ClientCredentials;
  ip: string | null;
  /** The issuer identifier (id_token iss). */
  issuer: string;
  /**
   * RFC 8707: the resource the request names, already checked to be one of this service's
   * (a path of src/domain/resources.ts), or null when none was sent.
   */
  resource: string | null;
  /**
   * RFC 9449: the thumbprint of the key of the request's DPoP proof (already verified and used up
   * by src/oauth/dpop.ts), or null without one: what the issued tokens are bound to.
   */
  dpopJkt: string | null;
  /**
   * The request's client, identified or authenticated, and checked against the grant types it
   * holds (unauthorized_client otherwise): the dispatch's one check for every grant.
   */
  client(mode: ClientMode): Promise<AuthenticatedClient>;
}

/** One OAuth grant (DESIGN, convention 3): the parameters it reads, and what it does. */
export interface Grant {
  /** Parameters that must be present and non-empty ("Missing required parameter: X."). */
  required: readonly string[];
  /** Every parameter the grant reads (documentation and tests; others are ignored). */
  reads: readonly string[];
  handle(ctx: GrantContext): Promise<TokenResponse>;
}

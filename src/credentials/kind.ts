import type { Bindings } from "../env";
import type { ApplicationPrincipal, Principal } from "./principal";

/** Lets a credential kind record its use after the response (GitLab's last_used_at), off the hot path. */
export type Defer = (p: Promise<unknown>) => void;

/**
 * One kind of bearer credential. Adding a kind is a module exporting one of these and a row in
 * the table of `kinds.ts`; `resolve` throws AuthError for a credential it refuses.
 */
export interface CredentialKind {
  /** The principal's `kind` it produces (or, for kinds that never authenticate a request, its name). */
  name: string;
  /** The visible prefix of the token (GitLab's: `glpat-` ...), by which it is routed without a lookup. */
  prefix: string;
  /** A user's principal; OAuth access tokens of client_credentials grants resolve to their application instead. */
  resolve(env: Bindings, token: string, defer?: Defer): Promise<Principal | ApplicationPrincipal>;
}

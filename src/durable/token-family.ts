import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../env";

/** The state of one grant's tokens (rotation, revocation), serialised in one object. */
export class TokenFamily extends DurableObject<Bindings> {}

import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../env";

/** One plugin topic: fans published messages out to its subscribers, in order. */
export class PluginTopic extends DurableObject<Bindings> {}

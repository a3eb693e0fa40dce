import app from "./app";
import type { Bindings } from "./env";
import { scheduled } from "./scheduled";

export { TokenFamily } from "./durable/token-family";
export { PluginTopic } from "./durable/plugin-topic";
export { FailureCounter } from "./throttle/failure-counter";
export { PersonalAccessTokenState } from "./durable/personal-access-token";
export { DpopReplay } from "./durable/dpop-replay";

// fetch: every request; scheduled: the cron trigger of wrangler.toml (storage upkeep).
export default { fetch: app.fetch, scheduled } satisfies ExportedHandler<Bindings>;

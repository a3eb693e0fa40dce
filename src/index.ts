import app from "./app";

export { TokenFamily } from "./durable/token-family";
export { PluginTopic } from "./durable/plugin-topic";
export { FailureCounter } from "./throttle/failure-counter";
export { PersonalAccessTokenState } from "./durable/personal-access-token";

export default app;

import app from "./app";

export { TokenFamily } from "./durable/token-family";
export { PluginTopic } from "./durable/plugin-topic";

export default app;

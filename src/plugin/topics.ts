import type { Bindings } from "../env";
import type { PluginTopic, TopicMessage } from "../durable/plugin-topic";
import { invalidArgument } from "./codes";

const TOPIC_RE = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;

export function checkTopic(topic: unknown): string {
  if (typeof topic !== "string" || !TOPIC_RE.test(topic)) {
    throw invalidArgument("topic must be 1-128 characters of letters, digits and . _ : / -");
  }
  return topic;
}

export function topicStub(env: Bindings, topic: string): DurableObjectStub<PluginTopic> {
  const ns = env.PLUGIN_TOPIC as unknown as DurableObjectNamespace<PluginTopic>;
  return ns.get(ns.idFromName(topic));
}

/**
 * The messages of a subscription, one by one as the topic object writes them. The first line
 * (the subscription's confirmation) is yielded as null.
 */
export async function* readSubscription(body: ReadableStream<Uint8Array>): AsyncGenerator<TopicMessage | null> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        const parsed = JSON.parse(line) as TopicMessage | { subscribed: true };
        yield "subscribed" in parsed ? null : parsed;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

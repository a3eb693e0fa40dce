import { env } from "cloudflare:test";
import { vi } from "vitest";

/**
 * A relying party's back-channel logout endpoint, as the Worker's global fetch sees it: a stub
 * that answers the statuses a test queues (200 once the queue is empty) and records every POST.
 * Any other URL goes to the real fetch.
 */
export interface Receiver {
  url: string;
  received: { token: string; contentType: string | null }[];
  statuses: number[];
}

const realFetch = globalThis.fetch;
const receivers = new Map<string, Receiver>();
export const outboundCalls: string[] = [];

export function installReceivers(): void {
  receivers.clear();
  outboundCalls.length = 0;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const receiver = receivers.get(url);
    outboundCalls.push(url);
    if (!receiver) return realFetch(input, init);
    const body = new URLSearchParams(String(init?.body ?? ""));
    receiver.received.push({ token: body.get("logout_token") ?? "", contentType: new Headers(init?.headers).get("content-type") });
    return new Response(null, { status: receiver.statuses.shift() ?? 200 });
  });
}

export function receiver(url: string, statuses: number[] = []): Receiver {
  const r: Receiver = { url, received: [], statuses };
  receivers.set(url, r);
  return r;
}

/** The delivery rows of an application. */
export async function deliveriesOf(applicationId: number) {
  const { results } = await env.DB.prepare("SELECT * FROM oidc_backchannel_logouts WHERE application_id = ? ORDER BY id").bind(applicationId).all<{
    status: string;
    attempts: number;
    next_attempt_at: number;
    last_error: string | null;
    sid: string;
  }>();
  return results;
}

/** Waits (bounded) until `check` holds: the sign-out's own delivery runs after its response. */
export async function until(check: () => Promise<boolean> | boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("condition not met in time");
}

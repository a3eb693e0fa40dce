import { env } from "cloudflare:test";

/**
 * The local outbox (src/mail/outbox.ts) as tests read it. Some mail goes out after the answer
 * (a password reset link is sent in waitUntil, so that the answer takes the same time for every
 * address), so readers wait for it: every wait is bounded and polls.
 */
const POLL_MS = 20;
const WITHIN_MS = 5000;

type Mail = { subject: string; body_text: string; from_address: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function mailCountTo(address: string): Promise<number> {
  return (await env.DB.prepare("SELECT count(*) AS n FROM mail_outbox WHERE to_address = ?").bind(address).first<number>("n")) ?? 0;
}

/**
 * The newest message to an address once at least `count` have arrived (1 unless told), waiting
 * at most `withinMs`; fails when they have not.
 */
export async function latestMailTo(address: string, opts: { count?: number; withinMs?: number } = {}): Promise<Mail> {
  const count = opts.count ?? 1;
  const deadline = Date.now() + (opts.withinMs ?? WITHIN_MS);
  for (;;) {
    if ((await mailCountTo(address)) >= count) {
      return (await env.DB.prepare("SELECT subject, body_text, from_address FROM mail_outbox WHERE to_address = ? ORDER BY id DESC LIMIT 1").bind(address).first<Mail>())!;
    }
    if (Date.now() > deadline) throw new Error(`fewer than ${count} mails to ${address} in the outbox after ${opts.withinMs ?? WITHIN_MS} ms`);
    await sleep(POLL_MS);
  }
}

/**
 * How many messages an address has once no new one has arrived for `quietMs` (bounded by
 * `withinMs`): how a test shows that mail sent after the answer did not come, when no other
 * record marks the end of that work.
 */
export async function settledMailCountTo(address: string, opts: { quietMs?: number; withinMs?: number } = {}): Promise<number> {
  const quietMs = opts.quietMs ?? 500;
  const deadline = Date.now() + (opts.withinMs ?? WITHIN_MS);
  let count = await mailCountTo(address);
  let since = Date.now();
  while (Date.now() - since < quietMs) {
    if (Date.now() > deadline) throw new Error(`mail to ${address} kept arriving for ${opts.withinMs ?? WITHIN_MS} ms`);
    await sleep(POLL_MS);
    const now = await mailCountTo(address);
    if (now !== count) [count, since] = [now, Date.now()];
  }
  return count;
}

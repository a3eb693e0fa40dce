import { env } from "cloudflare:test";

/** The newest message of the local outbox (src/mail/outbox.ts) to an address; fails when there is none. */
export async function latestMailTo(address: string): Promise<{ subject: string; body_text: string; from_address: string }> {
  const row = await env.DB.prepare("SELECT subject, body_text, from_address FROM mail_outbox WHERE to_address = ? ORDER BY id DESC LIMIT 1")
    .bind(address)
    .first<{ subject: string; body_text: string; from_address: string }>();
  if (!row) throw new Error(`no mail to ${address} in the outbox`);
  return row;
}

export async function mailCountTo(address: string): Promise<number> {
  return (await env.DB.prepare("SELECT count(*) AS n FROM mail_outbox WHERE to_address = ?").bind(address).first<number>("n")) ?? 0;
}

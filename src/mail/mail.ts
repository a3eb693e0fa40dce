import { getConfig } from "../config";
import type { Bindings } from "../env";
import { httpApiTransport } from "./http-api";
import { outboxTransport } from "./outbox";
import type { Mail, MailTransport } from "./message";
import { sendEmailBindingTransport } from "./send-email-binding";

export type { Mail } from "./message";

/**
 * The one mail interface (DESIGN, Platform and dependencies: mail): a plain-text message and a
 * transport that delivers it. Which transport, in this order:
 *  1. an HTTP mail API, when MAIL_HTTP_URL is set (POST JSON {from, to, subject, text} with
 *     `Authorization: Bearer MAIL_HTTP_KEY`, the shape of Resend's and similar APIs);
 *  2. Cloudflare's `send_email` binding, when the Worker has one named SEND_EMAIL (wrangler.toml);
 *  3. under `npm start` (LOCAL_DEV), the local outbox a developer reads at /-/mail.
 * Never a home-made SMTP client. A Worker with none of them sends nothing and says so in its log
 * (the pages answer as if it had, so nobody learns which addresses exist).
 */

/** The transport this Worker is configured with, or null when it has none. */
export function mailTransport(env: Bindings): MailTransport | null {
  const config = getConfig(env);
  if (config.mail.httpUrl) return httpApiTransport(config.mail.httpUrl, config.mail.httpKey);
  if (env.SEND_EMAIL) return sendEmailBindingTransport(env.SEND_EMAIL);
  if (config.localDev) return outboxTransport(env.DB);
  return null;
}

/**
 * The sender: MAIL_FROM, else GitLab's default `gitlab@<host of the service>` (the issuer's host,
 * else the request's).
 */
export function mailSender(env: Bindings, origin: string): string {
  const config = getConfig(env);
  return config.mail.from || `gitlab@${new URL(config.issuer || origin).hostname}`;
}

/** Sends one message; whether it went is the answer (a failure is logged, never the message's text). */
export async function sendMail(env: Bindings, origin: string, mail: Mail): Promise<boolean> {
  const transport = mailTransport(env);
  if (!transport) {
    console.warn(JSON.stringify({ msg: "mail not sent: no transport configured (MAIL_HTTP_URL or a send_email binding; docs/deploy.md, Mail)" }));
    return false;
  }
  try {
    await transport.send({ ...mail, from: mailSender(env, origin) });
    return true;
  } catch (e) {
    // Name and message of the transport's failure only: the mail holds a single-use link.
    console.error(JSON.stringify({ msg: "mail not sent", transport: transport.name, error: e instanceof Error ? `${e.name}: ${e.message}`.slice(0, 300) : "unknown" }));
    return false;
  }
}

import type { MailTransport, OutgoingMail } from "./message";

/**
 * Cloudflare's `send_email` binding (Email Service): the structured message builder, so the
 * platform writes the MIME message. The binding is declared in wrangler.toml as SEND_EMAIL
 * (docs/deploy.md, "Mail").
 */
export function sendEmailBindingTransport(binding: SendEmail): MailTransport {
  return {
    name: "send_email",
    async send(mail: OutgoingMail) {
      await binding.send({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}

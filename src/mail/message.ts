/** A plain-text message (src/mail/mail.ts sends it). */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** A message with its sender, as a transport receives it. */
export interface OutgoingMail extends Mail {
  from: string;
}

/** One way of delivering mail: an HTTP mail API, Cloudflare's send_email binding, or the local outbox. */
export interface MailTransport {
  name: "http_api" | "send_email" | "outbox";
  send(mail: OutgoingMail): Promise<void>;
}

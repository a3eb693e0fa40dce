import type { MailTransport, OutgoingMail } from "./message";

/**
 * An HTTP mail API named by URL and key (MAIL_HTTP_URL, MAIL_HTTP_KEY): one POST of JSON
 * {from, to, subject, text} with the key as a bearer token, the request Resend's /emails takes
 * (and other providers' compatible endpoints). Anything but a 2xx answer is a failure.
 */
export function httpApiTransport(url: string, key: string): MailTransport {
  return {
    name: "http_api",
    async send(mail: OutgoingMail) {
      const res = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...(key ? { Authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text }),
      });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`the mail API answered ${res.status}`);
    },
  };
}

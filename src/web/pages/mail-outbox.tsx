import { type Context } from "hono";
import { getConfig } from "../../config";
import { getDb } from "../../db/client";
import { findOutboxMail, listOutboxMail } from "../../db/mail-outbox";
import { formatDate, renderPage, type PageEnv } from "../page";
import { notFoundPage } from "./not-found";
import { pageApp } from "../door";

/**
 * /-/mail: the local outbox of `npm start` (src/mail/outbox.ts), like GitLab's letter_opener: the
 * mail the service would have sent, newest first, each with its links. Only while LOCAL_DEV is
 * true; a deployed Worker answers 404 here, as for any unknown path. Nobody needs to sign in: a
 * developer resetting a forgotten password is not signed in.
 */
const mailOutbox = pageApp({ enter: "anyone" });
const SHOWN = 50;

const localOnly = (c: Context<PageEnv>) => getConfig(c.env).localDev;

mailOutbox.get("/-/mail", async (c) => {
  if (!localOnly(c)) return notFoundPage(c);
  const mails = await listOutboxMail(getDb(c.env.DB), SHOWN);
  return renderPage(
    c,
    "Local outbox",
    <>
      <h1>Local outbox</h1>
      <p class="muted">Mail the service sent while running under npm start (kept for a day, the newest {SHOWN} shown). A deployed service sends mail instead.</p>
      {mails.length === 0 ? (
        <p>No mail yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Sent</th>
              <th>To</th>
              <th>Subject</th>
            </tr>
          </thead>
          <tbody>
            {mails.map((m) => (
              <tr>
                <td>{formatDate(m.createdAt)}</td>
                <td class="id">{m.toAddress}</td>
                <td>
                  <a href={`/-/mail/${m.id}`}>{m.subject}</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>,
  );
});

/** One message; the URLs in its text become links a developer can follow. */
mailOutbox.get("/-/mail/:id", async (c) => {
  if (!localOnly(c)) return notFoundPage(c);
  const id = Number(c.req.param("id"));
  const mail = Number.isSafeInteger(id) && id > 0 ? await findOutboxMail(getDb(c.env.DB), id) : null;
  if (!mail) return notFoundPage(c);
  return renderPage(
    c,
    mail.subject,
    <>
      <h1>{mail.subject}</h1>
      <dl class="card">
        <dt>From</dt>
        <dd class="id">{mail.fromAddress}</dd>
        <dt>To</dt>
        <dd class="id">{mail.toAddress}</dd>
        <dt>Sent</dt>
        <dd>{formatDate(mail.createdAt)}</dd>
      </dl>
      <div class="card mail-body">
        {mail.bodyText.split("\n").map((line) => (
          <p>{linkified(line)}</p>
        ))}
      </div>
      <p>
        <a href="/-/mail">Back to the outbox</a>
      </p>
    </>,
  );
});

/** Splits a line at http(s) URLs, which become links (the text itself stays escaped by JSX). */
function linkified(line: string) {
  return line.split(/(https?:\/\/[^\s]+)/).map((part, i) => (i % 2 === 1 ? <a href={part} class="id">{part}</a> : part));
}

export default mailOutbox;

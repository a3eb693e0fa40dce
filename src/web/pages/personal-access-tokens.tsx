import { type Context } from "hono";
import { getDb } from "../../db/client";
import { getPersonalAccessToken, listPersonalAccessTokens } from "../../db/personal-access-tokens";
import { PAT_SCOPES, isoDay, maxPatExpiry, type PatErrors } from "../../domain/pat-input";
import { createPersonalAccessToken, revokePersonalAccessToken } from "../../services/personal-access-tokens";
import { RevokeForm, ScopeBadges, ScopeCheckboxes, ShownOnce, TableHead } from "../components";
import { CsrfField, Flash, formatDate, renderPage, sessionActor, setFlash, takeFlash, type PageEnv } from "../page";
import { csrfToken } from "../session";
import { parseScopeList, parseScopes } from "../../domain/scopes";
import { pageApp } from "../door";
import { setDpopEnabled } from "../../services/ssh-keys";

/** /profile/personal_access_tokens: create (expiry required, at most a year), shown once, list, revoke. */
const pats = pageApp({ enter: "signed-in" });

type Ctx = Context<PageEnv>;
interface FormValues {
  name: string;
  expiresAt: string;
  scopes: string[];
}

async function page(c: Ctx, opts: { values?: FormValues; errors?: PatErrors; created?: { token: string; name: string } } = {}) {
  const user = c.var.user;
  const now = Date.now();
  const { rows: tokens } = await listPersonalAccessTokens(getDb(c.env.DB), { userId: user.id, state: "active", now });
  const token = await csrfToken(c);
  const values = opts.values ?? { name: "", expiresAt: isoDay(now + 30 * 86_400_000), scopes: [] };
  const errors = opts.errors ?? {};
  const errorText = Object.entries(errors).map(([field, list]) => `${field === "expires_at" ? "Expiration date" : field === "scopes" ? "Scopes" : "Token name"} ${list!.join(", ")}.`);
  return renderPage(
    c,
    "Personal access tokens",
    <>
      <h1>Personal access tokens</h1>
      <Flash kind="notice" message={takeFlash(c)} />
      {opts.created ? (
        <section class="card" aria-labelledby="created-heading">
          <h2 id="created-heading">Your new personal access token</h2>
          <ShownOnce id="created-personal-access-token" value={opts.created.token} copyLabel="Copy token" warning="Make sure you save it: you won't be able to access it again." />
        </section>
      ) : null}
      <p>
        Personal access tokens authenticate scripts and git (<code>PRIVATE-TOKEN</code> header or Bearer). Users with
        two-factor authentication use them instead of the password grant.
      </p>
      <h2>Add a personal access token</h2>
      {errorText.length ? <Flash kind="error" message={errorText.join(" ")} /> : null}
      <form method="post" action="/profile/personal_access_tokens" class="card">
        <CsrfField token={token} />
        <label for="personal_access_token_name">Token name</label>
        <input type="text" id="personal_access_token_name" name="name" required maxlength={255} value={values.name} />
        <label for="personal_access_token_expires_at">Expiration date</label>
        <p class="hint" id="expiry_hint">
          Required; at most one year from today (until {maxPatExpiry(now)}).
        </p>
        <input type="date" id="personal_access_token_expires_at" name="expires_at" required min={isoDay(now + 86_400_000)} max={maxPatExpiry(now)} value={values.expiresAt} aria-describedby="expiry_hint" />
        <fieldset>
          <legend>Select scopes</legend>
          <ScopeCheckboxes scopes={PAT_SCOPES} checked={values.scopes} idPrefix="pat_scope_" />
        </fieldset>
        <button type="submit">Create personal access token</button>
      </form>
      <h2>Use Demonstrating-proof-of-possession</h2>
      <form method="post" action="/profile/dpop" class="card">
        <CsrfField token={token} />
        <p class="hint" id="dpop_hint">
          When on, every API request with one of your personal access tokens must carry a DPoP proof signed by one of your
          SSH keys of usage type Signing (<code>glab auth dpop-gen</code>); a token without it is refused. Git over HTTPS is
          not affected.
        </p>
        <input type="hidden" name="dpop_enabled" value={user.dpopEnabled ? "false" : "true"} />
        <p>
          DPoP is <strong id="dpop_state">{user.dpopEnabled ? "on" : "off"}</strong>.
        </p>
        <button type="submit" aria-describedby="dpop_hint">{user.dpopEnabled ? "Turn DPoP off" : "Turn DPoP on"}</button>
      </form>
      <h2>Active personal access tokens ({tokens.length})</h2>
      {tokens.length === 0 ? (
        <p class="muted">This user has no active personal access tokens.</p>
      ) : (
        <table>
          <TableHead columns={["Token name", "Scopes", "Created", "Last used", "Expires"]} action />
          <tbody>
            {tokens.map((t) => (
              <tr>
                <td>{t.name}</td>
                <td>
                  <ScopeBadges scopes={parseScopes(t.scopes)} />
                </td>
                <td>{formatDate(t.createdAt)}</td>
                <td>{formatDate(t.lastUsedAt)}</td>
                <td>{t.expiresAt}</td>
                <td>
                  <RevokeForm action={`/profile/personal_access_tokens/${t.id}/revoke`} confirm={`Revoke ${t.name}?`} label={`Revoke ${t.name}`} token={token} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>,
    opts.errors ? 422 : opts.created ? 201 : 200,
  );
}

pats.get("/profile/personal_access_tokens", (c) => page(c));

pats.post("/profile/personal_access_tokens", async (c) => {
  const body = await c.req.parseBody({ all: true });
  const values: FormValues = {
    name: typeof body.name === "string" ? body.name : "",
    expiresAt: typeof body.expires_at === "string" ? body.expires_at : "",
    scopes: ([] as unknown[]).concat(body.scopes ?? []).filter((s): s is string => typeof s === "string"),
  };
  const created = await createPersonalAccessToken(c.env, sessionActor(c), { userId: c.var.user.id, ...values, scopes: parseScopeList(values.scopes) });
  if (!created.ok) return page(c, { values, errors: created.errors });
  // Shown in this response only; storage has its hash.
  return page(c, { created: { token: created.token, name: created.row.name } });
});

pats.post("/profile/personal_access_tokens/:id/revoke", async (c) => {
  const pat = await getPersonalAccessToken(getDb(c.env.DB), Number(c.req.param("id")));
  // Another user's token is as good as missing; revoking a revoked one again changes nothing.
  const own = pat !== null && pat.userId === c.var.user.id;
  if (own) await revokePersonalAccessToken(c.env, sessionActor(c), pat);
  setFlash(c, own ? "The personal access token was revoked." : "No such token.");
  return c.redirect("/profile/personal_access_tokens", 303);
});

/** GitLab's access tokens page holds the user's DPoP toggle (user preference dpop_enabled). */
pats.post("/profile/dpop", async (c) => {
  const body = await c.req.parseBody();
  const enabled = body.dpop_enabled === "true";
  await setDpopEnabled(c.env, sessionActor(c), c.var.user.id, enabled);
  setFlash(c, enabled ? "DPoP is on: your personal access tokens now need a proof signed by one of your SSH signing keys." : "DPoP is off.");
  return c.redirect("/profile/personal_access_tokens", 303);
});

export default pats;

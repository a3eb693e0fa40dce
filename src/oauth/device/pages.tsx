import type { Context } from "hono";
import { decideDeviceAuthorization } from "../../services/device-authorizations";
import { findApplicationById } from "../../db/applications";
import { getDb } from "../../db/client";
import { normalizeUserCode } from "../../domain/user-code";
import { CsrfField, Flash, pageApp, pageVisit, type PageEnv } from "../page-door";
import { DecisionForm, ScopeList, UnverifiedNotice } from "../consent-page";
import { attemptKeys, attemptRefused, countAttempt } from "../throttle";
import { findDeviceGrantByUserCode, type DeviceGrantRow } from "../../db/device-grants";
import { clientAddress } from "../../http/client-address";
import { parseScopes } from "../../domain/scopes";

/**
 * /oauth/device (RFC 8628 §3.3): the person signs in, types the code the device shows (a field
 * labelled "Code"), then authorizes or denies. Wrong codes are counted per person and per client
 * address, and a banned one is refused before any lookup, so codes cannot be guessed.
 */
// Mounted at /oauth by src/app.ts; a page (src/http/families.ts), so its errors render as the pages' do.
const pages = pageApp({ enter: "signed-in" });

function CodeForm(props: { csrf: string; code?: string; error?: string }) {
  return (
    <div class="narrow">
      <h1>Connect a device</h1>
      <p>Enter the code shown on your device or in your terminal.</p>
      <Flash kind="error" message={props.error} />
      <form method="post" action="/oauth/device" class="card">
        <CsrfField token={props.csrf} />
        <label for="user_code">Code</label>
        <input type="text" id="user_code" name="user_code" value={props.code ?? ""} autocomplete="off" autocapitalize="characters" spellcheck={false} required />
        <p>
          <button type="submit">Continue</button>
        </p>
      </form>
    </div>
  );
}

pages.get("/device", async (c) => pageVisit(c).render("Connect a device", <CodeForm csrf={await pageVisit(c).csrfToken()} code={c.req.query("user_code")?.slice(0, 20)} />));

/** A grant the person may still decide on, or why not (in words for the page). */
function usable(grant: DeviceGrantRow | null, now: number): string | null {
  if (!grant) return "That code is not valid. Check the code on your device and try again.";
  if (grant.expires_at <= now) return "That code has expired. Start again on your device to get a new code.";
  if (grant.status !== "pending") return "That code has already been used. Start again on your device to get a new code.";
  return null;
}

const TOO_MANY = "Too many wrong codes. Wait a minute and try again.";

type TypedCode = { kind: "refused" } | { kind: "unusable"; problem: string } | { kind: "usable"; grant: DeviceGrantRow; code: string };

/**
 * A user code typed by a person, under the device_code_entry limit per person and client address
 * (docs/oidc.md, Throttling). Every door that takes a typed code (the code form and the decision)
 * goes through here: the limit is checked before the lookup, and a wrong, expired or used code
 * counts; a usable one does not.
 */
async function typedUserCode(c: Context<PageEnv>, typed: string, now: number): Promise<TypedCode> {
  const keys = attemptKeys(clientAddress(c.req.raw, c.env), `user:${c.get("user").id}`);
  const refused = await attemptRefused(c.env, "device_code_entry", keys);
  if (refused) {
    c.header("Retry-After", String(refused.retryAfterSeconds));
    return { kind: "refused" };
  }
  const code = normalizeUserCode(typed);
  const grant = code ? await findDeviceGrantByUserCode(c.env.DB, code) : null;
  const problem = usable(grant, now);
  if (problem) {
    await countAttempt(c.env, "device_code_entry", keys);
    return { kind: "unusable", problem };
  }
  return { kind: "usable", grant: grant!, code: code! };
}

pages.post("/device", async (c) => {
  const body = await c.req.parseBody();
  const typed = typeof body.user_code === "string" ? body.user_code.slice(0, 40) : "";
  const again = async (error: string, status: 422 | 429) => pageVisit(c).render("Connect a device", <CodeForm csrf={await pageVisit(c).csrfToken()} code={typed} error={error} />, status);
  const user = c.get("user");
  const entry = await typedUserCode(c, typed, Date.now());
  if (entry.kind === "refused") return again(TOO_MANY, 429);
  if (entry.kind === "unusable") return again(entry.problem, 422);
  const { grant, code } = entry;
  const app = await findApplicationById(getDb(c.env.DB), grant.application_id);
  if (!app) return again("That code is not valid. Check the code on your device and try again.", 422);
  const scopes = parseScopes(grant!.scopes);
  return pageVisit(c).render(
    "Authorize device",
    <div class="narrow">
      <h1>
        Authorize <strong><bdi>{app.name}</bdi></strong> to use your account?
      </h1>
      {/* Names isolated (<bdi>) as on the consent page: nothing in a name reorders the sentence. */}
      <p>
        You are signed in as <strong><bdi>{user.username}</bdi></strong>. A device using <strong><bdi>{app.name}</bdi></strong> is asking for access to
        your account.
      </p>
      <UnverifiedNotice app={app} />
      <ScopeList scopes={scopes} />
      <DecisionForm action="/oauth/device/decision" csrf={await pageVisit(c).csrfToken()} hidden={{ user_code: code }} />
    </div>,
  );
});

pages.post("/device/decision", async (c) => {
  const body = await c.req.parseBody();
  const approve = body.decision === "approve";
  const user = c.get("user");
  const now = Date.now();
  const again = async (error: string, status: 422 | 429) => pageVisit(c).render("Connect a device", <CodeForm csrf={await pageVisit(c).csrfToken()} error={error} />, status);
  const entry = await typedUserCode(c, typeof body.user_code === "string" ? body.user_code.slice(0, 40) : "", now);
  if (entry.kind === "refused") return again(TOO_MANY, 429);
  if (entry.kind === "unusable") return again(entry.problem, 422);
  const grant = entry.grant;
  const actor = { id: user.id, ip: clientAddress(c.req.raw, c.env) };
  const decided = await decideDeviceAuthorization(c.env, actor, grant, { approve, authTime: (await pageVisit(c).authTime()) ?? now, now });
  if (!decided) return again("That code has already been used.", 422);
  return pageVisit(c).render(
    approve ? "Device authorized" : "Device denied",
    <div class="narrow">
      <h1>{approve ? "Device authorized" : "Access denied"}</h1>
      <Flash kind="notice" message={approve ? "Your device is now connected. You can return to it." : "The device was not given access to your account."} />
    </div>,
  );
});

export default pages;

/**
 * The demo SPA's script, served at /-/demo/spa.js. Plain browser JavaScript (no build step) doing
 * what a real SPA must: authorization code with PKCE (RFC 7636, S256), state checked on return,
 * the verifier and state in sessionStorage, the iss parameter checked (RFC 9207), the code
 * exchanged with fetch, /api/v4/user shown, refresh, and revocation on "Sign out" (RFC 7009).
 */
export const DEMO_SPA_SCRIPT = `
"use strict";
(function () {
  var cfg = document.getElementById("spa-config").dataset;
  var server = cfg.server, clientId = cfg.clientId, scope = cfg.scope;
  var redirectUri = location.origin + location.pathname;
  var store = sessionStorage;
  var $ = function (id) { return document.getElementById(id); };

  function b64url(bytes) {
    var s = ""; bytes = new Uint8Array(bytes);
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  }
  function random() { return b64url(crypto.getRandomValues(new Uint8Array(32))); }
  function show(state, message) {
    $("status").textContent = message || "";
    $("status").className = state === "error" ? "flash error" : state === "ok" ? "flash notice" : "";
    $("signed-in").hidden = state !== "ok";
    $("signed-out").hidden = state === "ok";
  }
  function form(params) { return new URLSearchParams(params); }

  async function token(params) {
    var res = await fetch(server + "/oauth/token", { method: "POST", mode: "cors", body: form(params) });
    var body = await res.json();
    if (!res.ok) throw new Error((body.error || res.status) + ": " + (body.error_description || "token request failed"));
    store.setItem("spa.tokens", JSON.stringify({ access: body.access_token, refresh: body.refresh_token, expiresAt: Date.now() + (body.expires_in || 0) * 1000, scope: body.scope }));
    return body;
  }

  async function loadUser() {
    var t = JSON.parse(store.getItem("spa.tokens") || "null");
    if (!t) { show("out"); return; }
    var res = await fetch(server + "/api/v4/user", { mode: "cors", headers: { Authorization: "Bearer " + t.access } });
    if (!res.ok) { store.removeItem("spa.tokens"); show("error", "The access token was refused (" + res.status + "). Sign in again."); return; }
    var user = await res.json();
    $("user-name").textContent = user.name + " (@" + user.username + ")";
    $("user-json").textContent = JSON.stringify(user, null, 2);
    $("token-info").textContent = "Access token expires " + new Date(t.expiresAt).toISOString() + "; scopes: " + t.scope;
    show("ok", "Signed in with authorization code + PKCE.");
  }

  async function signIn() {
    var state = random(), verifier = random();
    var challenge = b64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
    store.setItem("spa.state", state);
    store.setItem("spa.verifier", verifier);
    var q = new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, response_type: "code", state: state, scope: scope, code_challenge: challenge, code_challenge_method: "S256" });
    location.assign(server + "/oauth/authorize?" + q.toString());
  }

  async function callback(params) {
    var expected = store.getItem("spa.state");
    store.removeItem("spa.state");
    history.replaceState(null, "", redirectUri);
    if (!expected || params.get("state") !== expected) throw new Error("The state does not match: this response was not requested by this tab.");
    if (params.get("iss") && params.get("iss") !== cfg.issuer) throw new Error("The response comes from an unexpected issuer.");
    if (params.get("error")) throw new Error(params.get("error") + ": " + (params.get("error_description") || ""));
    await token({ grant_type: "authorization_code", client_id: clientId, code: params.get("code"), redirect_uri: redirectUri, code_verifier: store.getItem("spa.verifier") });
  }

  async function refresh() {
    var t = JSON.parse(store.getItem("spa.tokens") || "null");
    if (!t) return;
    await token({ grant_type: "refresh_token", client_id: clientId, refresh_token: t.refresh, redirect_uri: redirectUri, code_verifier: store.getItem("spa.verifier") });
    await loadUser();
    $("status").textContent = "Tokens refreshed: the previous pair no longer works.";
  }

  async function signOut() {
    var t = JSON.parse(store.getItem("spa.tokens") || "null");
    store.removeItem("spa.tokens");
    store.removeItem("spa.verifier");
    if (t) await fetch(server + "/oauth/revoke", { method: "POST", mode: "cors", body: form({ client_id: clientId, token: t.refresh || t.access }) });
    show("out", "Signed out: the tokens were revoked.");
  }

  function guard(fn) { return function () { fn().catch(function (e) { show("error", e.message); }); }; }
  $("sign-in").addEventListener("click", guard(signIn));
  $("refresh").addEventListener("click", guard(refresh));
  $("sign-out").addEventListener("click", guard(signOut));

  var params = new URLSearchParams(location.search);
  (params.has("code") || params.has("error") ? callback(params).then(loadUser) : loadUser()).catch(function (e) { show("error", e.message); });
})();
`;

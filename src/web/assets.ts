import type { AppEnv } from "../env";
import { pageApp } from "./door";

/**
 * The pages' one small stylesheet and one small script, served as files so the Content Security
 * Policy can forbid every inline style and script ('self' only).
 */
export const STYLES = `
:root{--fg:#1f1e24;--muted:#626168;--bg:#fbfafd;--line:#dcdcde;--accent:#1f75cb;--accent-dark:#0b5cad;--danger:#c91c00;--ok:#108548;--card:#fff}
[hidden]{display:none!important}*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header{background:#292961;color:#fff;padding:.5rem 1rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
header .brand{font-weight:700;color:#fff;text-decoration:none;font-size:1.1rem;margin-right:1rem}
header nav{display:flex;gap:.25rem;align-items:center;flex-wrap:wrap;flex:1}
header nav a{color:#fff;text-decoration:none;padding:.25rem .5rem;border-radius:4px}header nav a:hover{background:rgba(255,255,255,.15)}
header nav form{margin-left:auto}
main{max-width:52rem;margin:1.5rem auto;padding:0 1rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}h1,h2,h3{overflow-wrap:anywhere}h2{font-size:1.25rem;margin:2rem 0 .75rem;padding-bottom:.25rem;border-bottom:1px solid var(--line)}
a{color:var(--accent)}label{display:block;font-weight:600;margin:.75rem 0 .25rem}
.hint{color:var(--muted);font-size:.9rem;margin:.25rem 0}
input[type=text],input[type=password],input[type=email],input[type=date],input[type=url],input[type=number],textarea{width:100%;padding:.5rem;border:1px solid #89888d;border-radius:4px;font:inherit;background:#fff}
textarea{min-height:5rem}
button,.button{display:inline-block;padding:.45rem 1rem;border-radius:4px;border:1px solid var(--accent);background:var(--accent);color:#fff;font:inherit;cursor:pointer;text-decoration:none;margin:.25rem .25rem .25rem 0}
button:hover,.button:hover{background:var(--accent-dark)}
button.secondary,.button.secondary{background:#fff;color:var(--fg);border-color:#89888d}
button.danger,.button.danger{background:var(--danger);border-color:var(--danger);color:#fff}
header button.secondary{background:transparent;color:#fff;border-color:rgba(255,255,255,.5)}
button:focus-visible,a:focus-visible,input:focus-visible,textarea:focus-visible{outline:3px solid #9dc7f1;outline-offset:1px}
.card{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:1rem 1.25rem;margin:1rem 0}.card>h2:first-child,.card>h2:first-of-type{margin-top:0}
.narrow{max-width:26rem;margin:2rem auto}
.flash{padding:.75rem 1rem;border-radius:4px;margin:1rem 0}.flash.error{background:#fdd4cd;color:#8d1300}.flash.notice{background:#c3e6cd;color:#0d532a}.flash.warning{background:#f5d9a8;color:#5c3900}
table{width:100%;border-collapse:collapse;background:#fff}th,td{text-align:left;padding:.5rem;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:break-word}td .id,td code{overflow-wrap:anywhere}th{font-size:.9rem;color:var(--muted)}
code,.secret{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;background:#ececef;padding:.1rem .3rem;border-radius:3px;overflow-wrap:anywhere}
.secret-row{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
.muted{color:var(--muted)}fieldset{border:1px solid var(--line);border-radius:4px;margin:1rem 0;padding:.5rem 1rem}legend{font-weight:600}
.checkbox{margin:.4rem 0}.checkbox label{display:inline;font-weight:600;margin:0 0 0 .35rem}.checkbox .hint{margin:0 0 0 1.6rem}
.badge{display:inline-block;font-size:.8rem;padding:0 .45rem;border-radius:1rem;background:#ececef;margin:0 .2rem .2rem 0}
.badge.removed{background:#fdd4cd;color:#8d1300}.badge.deprecated{background:#f5d9a8;color:#5c3900}.badge.announced{background:#cbe2f9;color:#0b5cad}
.qr svg{width:200px;height:200px;border:1px solid var(--line)}
.codes{columns:2;font-family:ui-monospace,monospace;list-style:none;padding:0}
.actions{display:flex;gap:.25rem;flex-wrap:wrap;align-items:center}.actions form{display:inline}
:target{background:#fff7d6}
@media (max-width:40rem){
header{padding:.35rem .75rem;gap:.25rem .75rem}header .brand{margin-right:0;font-size:1rem}
header nav{gap:0 .1rem}header nav a{padding:.2rem .4rem;font-size:.9rem}header nav form button{margin:0;padding:.15rem .6rem;font-size:.9rem}
main{margin:1rem auto;padding:0 .75rem}h1{font-size:1.35rem}
table,thead,tbody,tr,th,td,caption{display:block}table{background:transparent}
thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
tr{background:#fff;border:1px solid var(--line);border-radius:6px;margin:.5rem 0;padding:.25rem .75rem}
td,tbody th{border:0;padding:.2rem 0}td[data-label]::before{content:attr(data-label);display:block;font-size:.8rem;font-weight:600;color:var(--muted)}
}
.id{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere;word-break:normal}
pre{max-width:100%;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
.timeline{list-style:none;margin:1rem 0 2rem .4rem;padding:0;border-left:3px solid var(--line)}
.timeline .stop{position:relative;padding:0 0 1rem 1.1rem}.timeline .stop::before{content:"";position:absolute;left:-.55rem;top:.4rem;width:.8rem;height:.8rem;border-radius:50%;background:#89888d}
.timeline .stop.past::before{background:#c4c4c7}.timeline .stop.current::before{background:var(--accent);box-shadow:0 0 0 3px #cbe2f9}.timeline .stop.current .stop-head{color:var(--accent-dark)}
.timeline .stop ul{margin:.25rem 0 .5rem;padding-left:1.1rem}.timeline .stop li{overflow-wrap:anywhere}.badge.here{background:var(--accent);color:#fff;margin-left:.4rem}
.nowrap{white-space:nowrap}.skip{position:absolute;left:-9999px;top:0;background:#fff;color:var(--accent);padding:.5rem 1rem;z-index:10}.skip:focus{left:.5rem}
`;

/** Copy buttons: progressive enhancement only; the value is always selectable text. */
export const SCRIPT = `
document.addEventListener("click", function (e) {
  var b = e.target.closest && e.target.closest("[data-copy]");
  if (!b) return;
  var el = document.getElementById(b.getAttribute("data-copy"));
  if (!el || !navigator.clipboard) return;
  var items = el.querySelectorAll("li");
  var text = el.getAttribute("data-secret") || (items.length
    ? Array.prototype.map.call(items, function (li) { return li.textContent.trim(); }).join("\\n")
    : el.textContent.trim());
  navigator.clipboard.writeText(text).then(function () {
    var old = b.textContent; b.textContent = "Copied"; setTimeout(function () { b.textContent = old; }, 1500);
  });
});
document.querySelectorAll("button[data-copy]").forEach(function (b) { b.hidden = false; });
// On a phone, tables become stacked rows (pages.css): each cell is labelled with its column's name.
document.querySelectorAll("table").forEach(function (t) {
  var heads = Array.prototype.map.call(t.querySelectorAll("thead th"), function (th) { return th.textContent.trim(); });
  t.querySelectorAll("tbody tr").forEach(function (tr) {
    Array.prototype.forEach.call(tr.children, function (cell, i) {
      if (heads[i] && heads[i] !== "Action" && !cell.hasAttribute("data-label")) cell.setAttribute("data-label", heads[i]);
    });
  });
});
document.addEventListener("submit", function (e) {
  var msg = e.target.getAttribute && e.target.getAttribute("data-confirm");
  if (msg && !window.confirm(msg)) e.preventDefault();
});
`;

const assets = pageApp<AppEnv>({ enter: "anyone" });
const cache = "public, max-age=3600";
assets.get("/-/assets/pages.css", (c) => c.body(STYLES, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": cache, "X-Content-Type-Options": "nosniff" }));
assets.get("/-/assets/pages.js", (c) => c.body(SCRIPT, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": cache, "X-Content-Type-Options": "nosniff" }));
// Browsers ask for it on every page; an empty answer keeps their consoles clean.
assets.get("/favicon.ico", (c) => c.body(null, 204, { "Cache-Control": "public, max-age=86400" }));
export default assets;

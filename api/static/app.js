// floe status page: a hash router over three views (overview, a table's
// page, the onboarding wizard), the token form, and a refresh every 3 s.
// It only shows what the API returns; the API never returns credentials.

import { ApiError, NeedToken, forgetToken, get, hasToken, setToken, takeTokenFromHash } from "./api.js";
import { Overview } from "./overview.js";
import { TablePage } from "./table.js";
import { $ } from "./ui.js";
import { Wizard } from "./wizard.js";

const REFRESH_MS = 3000;
let view = null;

// route picks the view for the address: #/ (overview, with its settings
// after ?), #/tables/NAME, #/onboard.
function route() {
  const hash = location.hash.replace(/^#/, "") || "/";
  const [p, query] = hash.split(/\?(.*)/s);
  const root = $("#view");
  if (view) view.destroy();
  document.querySelectorAll("nav.main a").forEach((a) => a.classList.toggle("on", a.dataset.route === (p.split("/")[1] || "")));
  const m = p.match(/^\/tables\/(.+)$/);
  if (m) {
    view = new TablePage(root, decodeURIComponent(m[1]));
    document.title = decodeURIComponent(m[1]) + " · floe";
  } else if (p === "/onboard") {
    view = new Wizard(root);
    document.title = "onboard · floe";
  } else {
    view = new Overview(root, query || "");
    document.title = "floe status";
  }
  refresh();
}

function showError(msg) {
  const el = $("#error");
  el.textContent = msg;
  el.hidden = !msg;
}

function showLogin(show, msg) {
  $("#login").hidden = !show;
  $("#login-msg").textContent = msg || "";
  $("#logout").hidden = show || !hasToken();
  $("#view").hidden = show;
}

async function refresh() {
  const v = view;
  try {
    await v.refresh();
    if (v !== view) return;
    showError("");
    showLogin(false);
    $("#updated").textContent = "updated " + new Date().toLocaleTimeString();
  } catch (e) {
    if (v !== view) return;
    if (e instanceof NeedToken) {
      const had = hasToken();
      forgetToken();
      showLogin(true, had ? "the token was refused" : "this floe asks for an API token");
      return;
    }
    showError(e instanceof ApiError ? e.message : "cannot reach floe: " + e.message);
  }
}

function setupLogin() {
  $("#login").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const tok = $("#token").value.trim();
    $("#token").value = "";
    if (tok) setToken(tok);
    route();
  });
  $("#logout").addEventListener("click", () => {
    forgetToken();
    route();
  });
}

// The version in the footer is only a courtesy: a failure is silent.
async function showVersion() {
  try {
    const hz = await get("/healthz");
    if (hz.version) $("#version").textContent = "floe " + hz.version;
  } catch { /* older floe or no access */ }
}

takeTokenFromHash();
setupLogin();
window.addEventListener("hashchange", route);
route();
showVersion();
setInterval(() => { if (!document.hidden) refresh(); }, REFRESH_MS);

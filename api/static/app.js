"use strict";
// floe status page: polls the JSON API and renders tables and runs.
// It only shows what the API returns; the API never returns credentials.

const $ = (sel) => document.querySelector(sel);
let selected = null;

// The API token lives in this browser tab's sessionStorage only: never in
// a cookie, never sent anywhere but floe's own API. A link ending in
// #token=... hands the page a token once and is removed from the address.
const TOKEN_KEY = "floe.token";

function takeTokenFromHash() {
  const m = location.hash.match(/^#token=(.+)$/);
  if (!m) return;
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
  history.replaceState(null, "", location.pathname + location.search);
}

function authHeaders(extra) {
  const h = Object.assign({}, extra);
  const tok = sessionStorage.getItem(TOKEN_KEY);
  if (tok) h["Authorization"] = "Bearer " + tok;
  return h;
}

// NeedToken: the API answered 401; the page shows the token form.
class NeedToken extends Error {}

function showLogin(show, msg) {
  $("#login").hidden = !show;
  $("#login-msg").textContent = msg || "";
  $("#logout").hidden = show || !sessionStorage.getItem(TOKEN_KEY);
}

function setupLogin() {
  $("#login").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const tok = $("#token").value.trim();
    $("#token").value = "";
    if (tok) sessionStorage.setItem(TOKEN_KEY, tok);
    refresh();
  });
  $("#logout").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    refresh();
  });
}

// Snapshot ids are 64-bit: JSON.parse would round them. Keep the source
// text of any integer a double cannot hold exactly (where the browser
// gives the reviver the source; elsewhere the rounded number shows).
async function getJSON(url) {
  const resp = await fetch(url, { headers: authHeaders() });
  if (resp.status === 401) throw new NeedToken();
  const body = await resp.text();
  const data = JSON.parse(body, (key, value, context) =>
    typeof value === "number" && !Number.isSafeInteger(value) && Number.isInteger(value) && context && context.source
      ? context.source : value);
  return { resp, data };
}

function text(v) { return v === undefined || v === null || v === "" ? "–" : String(v); }

function when(ts) {
  if (!ts || ts.startsWith("0001-")) return "–";
  return new Date(ts).toLocaleString();
}

function took(run) {
  if (!run.finishedAt || run.finishedAt.startsWith("0001-")) return "–";
  return ((new Date(run.finishedAt) - new Date(run.startedAt)) / 1000).toFixed(1) + " s";
}

function cell(row, value, cls) {
  const td = document.createElement("td");
  td.textContent = text(value);
  if (cls) td.className = cls;
  row.appendChild(td);
  return td;
}

function badge(row, value) {
  const td = document.createElement("td");
  const span = document.createElement("span");
  span.className = "state " + value;
  span.textContent = value;
  td.appendChild(span);
  row.appendChild(td);
}

async function post(name, action) {
  const resp = await fetch(`/api/v1/tables/${encodeURIComponent(name)}/${action}`, {
    method: "POST", headers: authHeaders({ "Content-Type": "application/json" }), body: "{}",
  });
  if (resp.status === 401) { showLogin(true, "the token was refused"); return; }
  if (!resp.ok) {
    const body = await resp.json().catch(() => ({}));
    showError(`${action} ${name}: ${body.error || resp.status}`);
  }
  refresh();
}

function showError(msg) {
  const el = $("#error");
  el.textContent = msg;
  el.hidden = !msg;
}

function renderTables(tables) {
  const body = $("#tables tbody");
  body.replaceChildren();
  $("#empty").hidden = tables.length > 0;
  for (const t of tables) {
    const row = document.createElement("tr");
    row.dataset.table = t.name;
    const name = document.createElement("td");
    const link = document.createElement("a");
    link.textContent = t.name;
    link.onclick = () => { selected = t.name; refresh(); };
    name.appendChild(link);
    row.appendChild(name);
    cell(row, t.source);
    badge(row, t.status.state);
    cell(row, t.checkpoint ? t.checkpoint.snapshotId : null, "snapshot");
    cell(row, t.checkpoint ? t.checkpoint.fileCount : null);
    if (t.lastRun) badge(row, t.lastRun.status); else cell(row, null);
    cell(row, t.lastRun ? t.lastRun.rows : null);
    cell(row, t.lastRun ? t.lastRun.segmentsGenerated : null);
    cell(row, when(t.status.nextRun));
    const actions = document.createElement("td");
    for (const action of ["trigger", t.status.state === "PAUSED" ? "resume" : "pause"]) {
      const b = document.createElement("button");
      b.textContent = action;
      b.onclick = () => post(t.name, action);
      actions.appendChild(b);
    }
    row.appendChild(actions);
    body.appendChild(row);
  }
}

async function renderRuns() {
  const section = $("#runs");
  if (!selected) { section.hidden = true; return; }
  const { resp, data } = await getJSON(`/api/v1/tables/${encodeURIComponent(selected)}/runs?limit=20`);
  if (!resp.ok) { section.hidden = true; return; }
  const { runs } = data;
  $("#runs-table").textContent = selected;
  const body = section.querySelector("tbody");
  body.replaceChildren();
  for (const r of runs) {
    const row = document.createElement("tr");
    cell(row, when(r.startedAt));
    cell(row, r.trigger);
    badge(row, r.status);
    cell(row, r.snapshotId);
    cell(row, r.filesDiscovered);
    cell(row, r.segmentsGenerated);
    cell(row, r.rows);
    cell(row, took(r));
    cell(row, r.error, "err");
    body.appendChild(row);
  }
  section.hidden = false;
}

// Connections as the API lists them: secret values are never sent, only
// the names of the secret keys.
async function renderConnections() {
  const section = $("#connections");
  const { resp, data } = await getJSON("/api/v1/connections");
  if (!resp.ok) { section.hidden = true; return; }
  const body = section.querySelector("tbody");
  body.replaceChildren();
  for (const c of data.connections) {
    const row = document.createElement("tr");
    row.dataset.connection = c.name;
    cell(row, c.name);
    cell(row, c.type);
    cell(row, Object.entries(c.props || {}).map(([k, v]) => `${k}=${v}`).join(", "));
    cell(row, (c.secretKeys || []).join(", "));
    body.appendChild(row);
  }
  section.hidden = data.connections.length === 0;
}

async function refresh() {
  try {
    const { resp, data } = await getJSON("/api/v1/tables");
    if (!resp.ok) throw new Error(`HTTP ${resp.status}`);
    const { tables } = data;
    renderTables(tables);
    await renderRuns();
    await renderConnections();
    showError("");
    showLogin(false);
    $("#updated").textContent = "updated " + new Date().toLocaleTimeString();
  } catch (e) {
    if (e instanceof NeedToken) {
      const had = sessionStorage.getItem(TOKEN_KEY);
      sessionStorage.removeItem(TOKEN_KEY);
      showLogin(true, had ? "the token was refused" : "this floe asks for an API token");
      return;
    }
    showError("cannot reach floe: " + e.message);
  }
}

takeTokenFromHash();
setupLogin();
refresh();
setInterval(refresh, 3000);

// DOM helpers and formatting shared by the views. Everything the page
// shows goes through textContent (h), never innerHTML: names and errors
// come from catalogs and files.

export const STATES = ["IDLE", "RUNNING", "BACKFILLING", "PAUSED", "DISABLED", "FAILED"];

// h creates an element: h("a", {href: "#/", class: "x", onclick: fn}, "text", child...).
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "value") el.value = v;
    else if (k === "checked") el.checked = !!v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function $(sel, root) { return (root || document).querySelector(sel); }

export function badge(state, extra) {
  return h("span", { class: "badge " + state + (extra ? " " + extra : ""), "data-state": state }, state);
}

export function text(v) { return v === undefined || v === null || v === "" ? "–" : String(v); }

export function validTime(ts) { return !!ts && !String(ts).startsWith("0001-"); }

export function fullTime(ts) { return validTime(ts) ? new Date(ts).toLocaleString() : ""; }

// ago says how far ts lies from now: "12 s ago", "in 3 min".
export function ago(ts) {
  if (!validTime(ts)) return "–";
  const s = (new Date(ts) - Date.now()) / 1000;
  const d = duration(Math.abs(s));
  return s > 1 ? "in " + d : s < -1 ? d + " ago" : "now";
}

// duration prints seconds as "850 ms", "12 s", "4 min", "3.5 h", "2 d".
export function duration(s) {
  if (s === undefined || s === null || Number.isNaN(s)) return "–";
  if (s < 1) return Math.round(s * 1000) + " ms";
  if (s < 90) return (s < 10 ? s.toFixed(1) : Math.round(s)) + " s";
  if (s < 5400) return Math.round(s / 60) + " min";
  if (s < 172800) return (s / 3600).toFixed(1) + " h";
  return Math.round(s / 86400) + " d";
}

// runSeconds is how long a run took (or has taken so far).
export function runSeconds(run) {
  if (!run || !validTime(run.startedAt)) return null;
  const end = validTime(run.finishedAt) ? new Date(run.finishedAt) : new Date();
  return Math.max(0, (end - new Date(run.startedAt)) / 1000);
}

export function num(n) {
  if (n === undefined || n === null || n === "") return "–";
  const v = Number(n);
  return Number.isFinite(v) ? v.toLocaleString() : String(n);
}

export function compact(n) {
  const v = Number(n);
  if (!Number.isFinite(v)) return "–";
  const abs = Math.abs(v);
  if (abs >= 1e9) return (v / 1e9).toFixed(1).replace(/\.0$/, "") + "G";
  if (abs >= 1e6) return (v / 1e6).toFixed(1).replace(/\.0$/, "") + "M";
  if (abs >= 1e4) return (v / 1e3).toFixed(1).replace(/\.0$/, "") + "k";
  return v.toLocaleString();
}

export function firstLine(s) { return s ? String(s).split("\n")[0] : ""; }

export function failed(run) { return !!run && (run.status === "FAILED" || run.status === "ABANDONED"); }

// overviewState is the state the API computes (tableView.state); for an
// older floe that does not send it, it is derived from the watcher's
// status and the last run the same way.
export function overviewState(t) {
  if (t.state) return t.state;
  const st = (t.status && t.status.state) || "";
  if (st === "PAUSED" || st === "DISABLED" || st === "BACKFILLING") return st;
  if (st === "RUNNING" || (t.lastRun && t.lastRun.status === "RUNNING")) return "RUNNING";
  if (st === "ERROR" || failed(t.lastRun)) return "FAILED";
  return "IDLE";
}

// normalize fills the overview fields an older floe leaves out.
export function normalize(t) {
  const v = Object.assign({}, t);
  v.status = v.status || {};
  v.state = overviewState(v);
  if (v.rows === undefined) v.rows = (v.checkpoint && v.checkpoint.rows) || 0;
  if (v.lastError === undefined && failed(v.lastRun)) v.lastError = firstLine(v.lastRun.error);
  return v;
}

// lagText: "3 snapshots behind · 4 min", "in sync", or "–" when
// unknown; with the table's state, a failed table never reads "in sync"
// (its last run did not get there).
export function lagText(lag, state) {
  if (!lag) return "–";
  if (!lag.snapshots) return state === "FAILED" ? "unknown: last run failed" : "in sync";
  const snaps = (lag.snapshots === 1 ? "1 snapshot" : lag.snapshots + " snapshots") + " behind";
  return lag.seconds ? snaps + " · " + duration(lag.seconds) : snaps;
}

// lagChecked: "checked 20 s ago", when the lag was last measured.
export function lagChecked(lag) {
  return lag && validTime(lag.checkedAt) ? "checked " + ago(lag.checkedAt) : "";
}

export function pretty(v) { return JSON.stringify(v, null, 2); }

// outcome shows an action's result in el: ok (green) or an error (red).
export function outcome(el, ok, msg) {
  el.className = "outcome " + (ok ? "ok" : "bad");
  el.textContent = msg;
  el.hidden = false;
}

// pager renders "‹ prev  page 2 of 7 (640)  next ›" calling go(page).
export function pager(page, pages, total, go) {
  return h("nav", { class: "pager" },
    h("button", { type: "button", class: "ghost", disabled: page <= 1, onclick: () => go(page - 1) }, "‹ prev"),
    h("span", { class: "muted" }, `page ${page} of ${Math.max(pages, 1)} · ${num(total)} total`),
    h("button", { type: "button", class: "ghost", disabled: page >= pages, onclick: () => go(page + 1) }, "next ›"));
}

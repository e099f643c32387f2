// A table's page (#/tables/NAME): state and actions, progress of a
// running run, run history charts, the runs, the log of the last failed
// run, the checkpoint, and the Pinot schema and table config.

import { ApiError, get, patch, path, post } from "./api.js";
import { barChart } from "./charts.js";
import { CheckpointView } from "./checkpoint.js";
import {
  ago, badge, compact, duration, failed, fullTime, h, lagChecked, lagText, normalize, num, outcome, pretty, runSeconds, text,
} from "./ui.js";

const RUNS = 50;

export class TablePage {
  constructor(root, name) {
    this.root = root;
    this.name = name;
    this.cp = new CheckpointView(name);
    this.cpKey = null;
    this.build();
  }

  build() {
    this.title = h("div", { class: "title" });
    this.actions = h("div", { class: "actions" });
    this.schedule = h("input", { id: "schedule-input", spellcheck: "false", size: 16, "aria-label": "schedule",
      oninput: () => { this.scheduleDirty = true; } });
    const save = h("button", { type: "submit", "data-action": "schedule" }, "Save schedule");
    this.scheduleForm = h("form", { class: "inline-form", onsubmit: (ev) => {
      ev.preventDefault();
      this.act(save, "schedule", () => this.change({ schedule: this.schedule.value.trim() }, "Schedule saved."))
        .then((ok) => { if (ok) this.scheduleDirty = false; });
    } }, this.schedule, save);
    this.result = h("p", { class: "outcome", id: "action-outcome", role: "status", hidden: true });
    this.progress = h("div", { class: "progress", id: "progress", hidden: true });
    this.stats = h("section", { class: "cards", id: "table-stats" });
    this.charts = h("section", { class: "charts", id: "charts" });
    this.runsBody = h("tbody");
    this.log = h("section", { class: "panel", id: "failure-log", hidden: true });
    this.config = h("section", { class: "panel", id: "pinot-config" });
    this.root.replaceChildren(
      h("a", { href: "#/", class: "back" }, "‹ all tables"),
      h("header", { class: "page-head" }, this.title, h("div", { class: "controls" }, this.actions, this.scheduleForm)),
      this.result, this.progress, this.stats, this.charts,
      h("section", { class: "panel", id: "runs" }, h("h2", {}, "Runs"),
        h("div", { class: "table-wrap" }, h("table", {},
          h("thead", {}, h("tr", {}, ...RUN_COLUMNS.map(([key, label, title]) => h("th", { "data-col": key, title }, label)))),
          this.runsBody))),
      this.log, this.cp.el, this.config);
  }

  async refresh() {
    let view, runs;
    try {
      // The runs first, then the table: the table's state and last run are
      // the newer answer, and a run that ended between the two reads shows
      // as ended in both places (reconcile), never RUNNING beside itself
      // COMPLETED.
      ({ runs } = await get(path`/api/v1/tables/${this.name}/runs` + "?limit=" + RUNS));
      view = normalize(await get(path`/api/v1/tables/${this.name}`));
      runs = reconcile(runs || [], view.lastRun);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        this.root.replaceChildren(h("a", { href: "#/", class: "back" }, "‹ all tables"),
          h("p", { class: "error" }, `No table named ${this.name}.`));
        return;
      }
      throw e;
    }
    this.view = view;
    this.renderTitle(view);
    this.renderActions(view);
    this.renderProgress(view);
    this.renderStats(view);
    this.renderRuns(runs || []);
    this.renderLog(runs || []);
    const key = view.checkpoint ? `${view.checkpoint.snapshotId}/${view.checkpoint.fileCount}/${view.checkpoint.committedAt}` : "none";
    if (key !== this.cpKey) {
      this.cpKey = key;
      await this.cp.load();
    }
    this.renderCharts(runs || []);
    if (!this.configShown) this.renderConfig(view);
  }

  renderTitle(v) {
    const tc = v.taskConfig || {};
    const schedule = tc.schedule || (tc["schedule.paused"] ? tc["schedule.paused"] + " (paused)" : "");
    this.title.replaceChildren(
      h("h1", {}, v.name, " ", badge(v.state)),
      h("p", { class: "muted" }, [`source ${v.source}`, `connection ${v.connection}`, schedule && `schedule ${schedule}`,
        `revision ${v.revision}`].filter(Boolean).join(" · ")));
  }

  renderActions(v) {
    const tc = v.taskConfig || {};
    if (!this.scheduleDirty && document.activeElement !== this.schedule) this.schedule.value = tc.schedule || tc["schedule.paused"] || "";
    const paused = v.state === "PAUSED" || (tc["schedule.paused"] !== undefined && tc.schedule === undefined);
    const enabled = String(tc.enabled).toLowerCase() !== "false";
    const button = (action, label, run, cls) => h("button", { type: "button", "data-action": action, class: cls || "",
      onclick: (ev) => this.act(ev.currentTarget, action, run) }, label);
    this.actions.replaceChildren(
      button("trigger", "Sync now", () => this.trigger(), "primary"),
      paused ? button("resume", "Resume", () => this.simple("resume")) : button("pause", "Pause", () => this.simple("pause")),
      enabled ? button("disable", "Disable", () => this.setEnabled(false), "danger")
        : button("enable", "Enable", () => this.setEnabled(true)));
  }

  // act runs one action with its button busy, shows the outcome and
  // says whether it worked.
  async act(btn, action, run) {
    btn.disabled = true;
    try {
      outcome(this.result, true, await run());
      return true;
    } catch (e) {
      outcome(this.result, false, `${action} failed: ${e.message}`);
      return false;
    } finally {
      btn.disabled = false;
      this.refresh().catch(() => {});
    }
  }

  async trigger() {
    const { data } = await post(path`/api/v1/tables/${this.name}/trigger`, {});
    return `Run ${data.runId || ""} started.`;
  }

  async simple(action) {
    await post(path`/api/v1/tables/${this.name}/${action}`, {});
    return action === "pause" ? "Paused: no scheduled run starts until resumed." : "Resumed: the schedule runs again.";
  }

  setEnabled(on) {
    return this.change({ enabled: on }, on ? "Enabled: the table syncs on its schedule." : "Disabled: floe does not sync the table.");
  }

  // change PATCHes the table's task config at the revision shown (412:
  // someone changed it meanwhile).
  async change(body, done) {
    const extra = this.view && this.view.revision ? { "If-Match": String(this.view.revision) } : {};
    try {
      await patch(path`/api/v1/tables/${this.name}`, body, extra);
    } catch (e) {
      if (e instanceof ApiError && e.status === 412) throw new Error("the table changed meanwhile; look again and retry");
      if (e instanceof ApiError && e.missing) throw new Error("this floe does not support changing a table yet");
      throw e;
    }
    return done;
  }

  renderProgress(v) {
    const p = v.status && v.status.progress;
    if (!p || !(v.state === "RUNNING" || v.state === "BACKFILLING")) {
      this.progress.hidden = true;
      return;
    }
    const pct = p.filesTotal ? Math.min(100, (100 * p.filesDone) / p.filesTotal) : 0;
    this.progress.hidden = false;
    this.progress.replaceChildren(
      h("div", { class: "bar", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": p.filesTotal, "aria-valuenow": p.filesDone },
        h("span", { style: `width:${pct.toFixed(1)}%` })),
      h("span", { class: "muted" }, `${num(p.filesDone)} of ${num(p.filesTotal)} files · ${num(p.rows)} rows` +
        (p.batched ? " · Pinot serves the files done" : "")));
  }

  renderStats(v) {
    const card = (label, value, title, note) => h("div", { class: "card static", title: title || String(value) },
      h("span", { class: "count" + (String(value).length > 12 ? " long" : "") }, value), h("span", { class: "label" }, label),
      note ? h("span", { class: "muted small note" }, note) : null);
    const cp = v.checkpoint || {};
    const run = v.lastRun;
    this.stats.replaceChildren(
      card("rows in Pinot", compact(v.rows), num(v.rows)),
      card("files", compact(cp.fileCount || 0)),
      card("lag", lagText(v.lag, v.state), lagChecked(v.lag), lagChecked(v.lag)),
      card("last run", run ? ago(run.startedAt) : "–", run ? fullTime(run.startedAt) : ""),
      card("next run", v.state === "PAUSED" || v.state === "DISABLED" ? "–" : ago(v.status.nextRun), fullTime(v.status.nextRun)),
      card("snapshot", text(cp.snapshotId)),
      card("last event", v.lastEvent ? ago(v.lastEvent.receivedAt) : "–", eventTitle(v.lastEvent)));
  }

  // renderCharts plots what each title says: files converted (added,
  // then rebuilt, stacked), rows converted (the same), duration. A run
  // recorded before runs said what they did has no files converted ("?")
  // and its rows as one total.
  renderCharts(runs) {
    const chrono = runs.filter((r) => r.status !== "SKIPPED").slice().reverse();
    const label = (r) => new Date(r.startedAt).toLocaleTimeString();
    const tip = (r, what) => `${fullTime(r.startedAt)} · ${r.status}${r.kind ? " · " + r.kind : ""} · ${what}` +
      (failed(r) && r.error ? "\n" + r.error.split("\n")[0] : "");
    const point = (r, value, parts, what) => ({ value, parts, id: r.id, label: label(r), failed: failed(r), tip: tip(r, what) });
    const files = chrono.map((r) => (uncounted(r)
      ? point(r, null, null, `${num(live(r))} live files; files converted not recorded`)
      : point(r, (r.filesAdded || 0) + (r.filesRebuilt || 0),
        [{ value: r.filesAdded || 0, cls: "added" }, { value: r.filesRebuilt || 0, cls: "rebuilt" }],
        `${num(r.filesAdded || 0)} files added + ${num(r.filesRebuilt || 0)} rebuilt`)));
    const rows = chrono.map((r) => (uncounted(r)
      ? point(r, r.rows || 0, null, `${num(r.rows)} rows written (added and rebuilt not told apart)`)
      : point(r, (r.rowsAdded || 0) + (r.rowsRebuilt || 0),
        [{ value: r.rowsAdded || 0, cls: "added" }, { value: r.rowsRebuilt || 0, cls: "rebuilt" }],
        `${num(r.rowsAdded || 0)} rows added + ${num(r.rowsRebuilt || 0)} rebuilt`)));
    const legend = [{ cls: "added", label: "added" }, { cls: "rebuilt", label: "rebuilt" }];
    const counts = (v) => (Number.isInteger(v) ? compact(v) : ""); // no "2.5 files" on the axis
    this.charts.replaceChildren(
      barChart("rows", "Rows converted per run", rows, counts, legend),
      barChart("files", "Files converted per run", files, counts, legend),
      barChart("duration", "Duration per run", chrono.map((r) => point(r, runSeconds(r), null, duration(runSeconds(r)))), duration),
      this.snapshotChart(runs));
  }

  // snapshotChart shows the data files live per snapshot synced, from
  // the checkpoint when it carries them, else files seen per run.
  snapshotChart(runs) {
    const counts = this.cp.snapshotFileCounts;
    if (counts && Object.keys(counts).length) {
      // Snapshot ids are random: order them by when a run synced them.
      const order = new Map();
      runs.slice().reverse().forEach((r, i) => { if (r.snapshotId && !order.has(String(r.snapshotId))) order.set(String(r.snapshotId), i); });
      const rank = (id) => (order.has(id) ? order.get(id) : -1);
      const ids = Object.keys(counts).sort((a, b) => rank(a) - rank(b));
      return barChart("snapshots", "Files per snapshot", ids.map((id) => ({ value: counts[id], label: id.slice(-6),
        tip: `snapshot ${id}: ${num(counts[id])} files` })));
    }
    const seen = new Map();
    for (const r of runs.slice().reverse()) {
      if (r.snapshotId && r.status === "COMPLETED") seen.set(String(r.snapshotId), live(r));
    }
    return barChart("snapshots", "Live files per snapshot", [...seen].map(([id, n]) => ({ value: n,
      label: id.slice(-6), tip: `snapshot ${id}: ${num(n)} live files` })));
  }

  renderRuns(runs) {
    const count = (r, v) => h("td", { class: "num" }, r.kind ? num(v || 0) : "–"); // no kind: not recorded
    this.runsBody.replaceChildren(...runs.slice(0, 20).map((r) => h("tr", { "data-run": r.id, "data-status": r.status,
      "data-kind": r.kind || "" },
      h("td", { title: fullTime(r.startedAt) }, ago(r.startedAt)),
      h("td", {}, text(r.trigger)),
      h("td", {}, badge(r.status, "small")),
      h("td", { class: "kind", title: kindReason(r) }, r.kind ? h("span", { class: "tag " + r.kind }, r.kind) : "–"),
      h("td", { class: "snapshot" }, text(r.snapshotId)),
      count(r, r.filesAdded), count(r, r.filesRebuilt), count(r, r.filesRemoved),
      h("td", { class: "num" }, live(r) ? num(live(r)) : "–"),
      count(r, r.rowsAdded), count(r, r.rowsRebuilt),
      h("td", { class: "num" }, num(r.segmentsGenerated)),
      h("td", { class: "num" }, num(r.segmentsDeleted)),
      h("td", { class: "num" }, duration(runSeconds(r))),
      h("td", { class: "err", title: r.error || "" }, r.error ? r.error.split("\n")[0] : ""))));
    for (const tr of this.runsBody.children) {
      [...tr.children].forEach((td, i) => { if (RUN_COLUMNS[i]) td.dataset.col = RUN_COLUMNS[i][0]; });
    }
    if (!runs.length) {
      this.runsBody.replaceChildren(h("tr", {}, h("td", { colspan: RUN_COLUMNS.length, class: "muted" }, "No runs yet.")));
    }
  }

  // renderLog shows the last failed run's error and its own log lines
  // (Run.log) when the run carries them.
  renderLog(runs) {
    const run = runs.find(failed);
    if (!run) { this.log.hidden = true; return; }
    this.log.hidden = false;
    const lines = (run.log || []).map((l) => h("div", { class: "logline " + (l.level || "INFO") },
      h("span", { class: "at" }, l.at ? new Date(l.at).toLocaleTimeString() : ""),
      h("span", { class: "lvl" }, l.level || ""),
      h("span", { class: "msg" }, l.msg || ""),
      h("span", { class: "attrs" }, Object.entries(l.attrs || {}).map(([k, v]) => `${k}=${v}`).join(" "))));
    this.log.replaceChildren(
      h("h2", {}, "Last failed run"),
      h("p", { class: "muted" }, `${run.status} · started ${fullTime(run.startedAt)} · run ${run.id}`),
      h("pre", { class: "log error-text" }, run.error || "(no error recorded)"),
      ...(lines.length ? [h("h3", {}, "Its log"), h("div", { class: "log", id: "failure-log-lines" }, lines)] : []));
  }

  renderConfig(v) {
    this.configShown = true;
    const doc = (title, obj, id) => h("details", { id, open: false }, h("summary", {}, title),
      obj ? h("pre", { class: "json" }, pretty(obj)) : h("p", { class: "muted" }, "Not served by this floe version."));
    this.config.replaceChildren(h("h2", {}, "Pinot schema and table config"),
      doc("Schema", v.schema, "pinot-schema"), doc("Table config", v.tableConfig, "pinot-table-config"));
  }

  destroy() {}
}

// RUN_COLUMNS: the runs table's columns, [key, header, what it counts];
// the names are the run record's (and the CLI's and the metrics').
const RUN_COLUMNS = [
  ["started", "Started"], ["trigger", "Trigger"], ["status", "Status"],
  ["kind", "Kind", "what the run did: append, backfill, replace, merge, remap, schema-rebuild, none (hover a kind for why)"],
  ["snapshot", "Snapshot"],
  ["filesAdded", "Files added", "data files new to Pinot, converted"],
  ["filesRebuilt", "Files rebuilt", "data files Pinot held, converted again (merge, regrouped unit, new deletes, schema rebuild)"],
  ["filesRemoved", "Files removed", "data files gone from the snapshot; their rows left Pinot"],
  ["liveFiles", "Live files", "data files of the snapshot synced"],
  ["rowsAdded", "Rows added", "rows of the files added"],
  ["rowsRebuilt", "Rows rebuilt", "rows of the files rebuilt: served before, not new"],
  ["segmentsBuilt", "Segments built", "segments pushed to Pinot"],
  ["segmentsReplaced", "Segments replaced", "segments the run's atomic replacement took out of Pinot"],
  ["took", "Took"], ["error", "Error"],
];

// uncounted: a record from before runs said what they did (no kind, yet
// files seen): its filesDiscovered is the snapshot's live files and its
// other counts are unknown.
function uncounted(r) { return !r.kind && (r.filesDiscovered || 0) > 0; }

// live: the snapshot's data files, under either name.
function live(r) { return r.liveFiles || r.filesDiscovered || 0; }

// kindReason is why the run is of its kind, from its log ("run kind: …").
function kindReason(r) {
  const line = (r.log || []).find((l) => (l.msg || "").startsWith("run kind: "));
  return line && line.attrs && line.attrs.reason ? `${r.kind}: ${line.attrs.reason}` : (r.kind || "");
}

// reconcile puts the table's last run, read after the run list, in the
// list: a run that ended (or started) between the two reads shows as the
// table's state says.
export function reconcile(runs, last) {
  if (!last || !last.id) return runs;
  const i = runs.findIndex((r) => r.id === last.id);
  if (i < 0) return [last, ...runs];
  const out = runs.slice();
  out[i] = Object.assign({}, runs[i], last, { log: last.log || runs[i].log });
  return out;
}

// eventTitle describes a table's last change notification (this replica's):
// its kind, the queue or webhook it came by, and what it named.
export function eventTitle(ev) {
  if (!ev) return "no change notification received by this replica";
  const e = ev.event || {};
  const what = e.metadataLocation || [e.catalog, e.namespace, e.table].filter(Boolean).join(" / ");
  return `${e.kind} via ${ev.via} · ${fullTime(ev.receivedAt)}` + (what ? "\n" + what : "");
}

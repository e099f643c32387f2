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
          h("thead", {}, h("tr", {}, ...["Started", "Trigger", "Status", "Snapshot", "Files", "Segments", "Rows", "Took", "Error"]
            .map((c) => h("th", {}, c)))),
          this.runsBody))),
      this.log, this.cp.el, this.config);
  }

  async refresh() {
    let view;
    try {
      view = normalize(await get(path`/api/v1/tables/${this.name}`));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        this.root.replaceChildren(h("a", { href: "#/", class: "back" }, "‹ all tables"),
          h("p", { class: "error" }, `No table named ${this.name}.`));
        return;
      }
      throw e;
    }
    const { runs } = await get(path`/api/v1/tables/${this.name}/runs` + "?limit=" + RUNS);
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

  renderCharts(runs) {
    const chrono = runs.filter((r) => r.status !== "SKIPPED").slice().reverse();
    const label = (r) => new Date(r.startedAt).toLocaleTimeString();
    const tip = (r, what) => `${fullTime(r.startedAt)} · ${r.status} · ${what}` + (failed(r) && r.error ? "\n" + r.error.split("\n")[0] : "");
    const pts = (fn, fmt) => chrono.map((r) => ({ value: fn(r), label: label(r), failed: failed(r), tip: tip(r, fmt(fn(r))) }));
    const charts = [
      barChart("rows", "Rows per run", pts((r) => r.rows, (v) => num(v) + " rows")),
      barChart("files", "Files per run", pts((r) => r.filesDiscovered, (v) => num(v) + " files")),
      barChart("duration", "Duration per run", pts((r) => runSeconds(r), duration), duration),
      this.snapshotChart(runs),
    ];
    this.charts.replaceChildren(...charts);
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
      if (r.snapshotId && r.status === "COMPLETED") seen.set(String(r.snapshotId), r.filesDiscovered);
    }
    return barChart("snapshots", "Files discovered per snapshot", [...seen].map(([id, n]) => ({ value: n,
      label: id.slice(-6), tip: `snapshot ${id}: ${num(n)} files discovered` })));
  }

  renderRuns(runs) {
    this.runsBody.replaceChildren(...runs.slice(0, 20).map((r) => h("tr", { "data-run": r.id, "data-status": r.status },
      h("td", { title: fullTime(r.startedAt) }, ago(r.startedAt)),
      h("td", {}, text(r.trigger)),
      h("td", {}, badge(r.status, "small")),
      h("td", { class: "snapshot" }, text(r.snapshotId)),
      h("td", { class: "num" }, num(r.filesDiscovered)),
      h("td", { class: "num" }, num(r.segmentsGenerated)),
      h("td", { class: "num" }, num(r.rows)),
      h("td", { class: "num" }, duration(runSeconds(r))),
      h("td", { class: "err", title: r.error || "" }, r.error ? r.error.split("\n")[0] : ""))));
    if (!runs.length) this.runsBody.replaceChildren(h("tr", {}, h("td", { colspan: 9, class: "muted" }, "No runs yet.")));
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

// eventTitle describes a table's last change notification (this replica's):
// its kind, the queue or webhook it came by, and what it named.
export function eventTitle(ev) {
  if (!ev) return "no change notification received by this replica";
  const e = ev.event || {};
  const what = e.metadataLocation || [e.catalog, e.namespace, e.table].filter(Boolean).join(" / ");
  return `${e.kind} via ${ev.via} · ${fullTime(ev.receivedAt)}` + (what ? "\n" + what : "");
}

// The overview: counts per state on top, then one page of tables with
// filter by state, search, sorting and pagination. The view's settings
// live in the address (#/?state=FAILED&q=x&sort=-lag&page=2) so a link
// shows the same page.

import { ApiError, get } from "./api.js";
import {
  STATES, ago, badge, compact, duration, fullTime, h, lagChecked, lagText, normalize, num, pager, runSeconds, validTime,
} from "./ui.js";

const SORTS = { name: "Table", state: "State", lag: "Lag", lastRun: "Last run", rows: "Rows in Pinot" };
const PAGE_SIZE = 50;

// settings reads the view's settings from the hash's query.
function settings(query) {
  const q = new URLSearchParams(query);
  return {
    states: (q.get("state") || "").split(",").filter((s) => STATES.includes(s)),
    q: q.get("q") || "",
    sort: q.get("sort") || "name",
    page: Math.max(1, parseInt(q.get("page"), 10) || 1),
    pageSize: Math.min(1000, Math.max(1, parseInt(q.get("pageSize"), 10) || PAGE_SIZE)),
  };
}

function queryOf(set) {
  const q = new URLSearchParams();
  if (set.states.length) q.set("state", set.states.join(","));
  if (set.q) q.set("q", set.q);
  if (set.sort !== "name") q.set("sort", set.sort);
  if (set.page > 1) q.set("page", set.page);
  if (set.pageSize !== PAGE_SIZE) q.set("pageSize", set.pageSize);
  return q.toString();
}

// sortKey orders tables the way the API's sort parameter does.
function sortKey(t, by) {
  switch (by) {
    case "state": return STATES.indexOf(t.state);
    case "lag": return t.lag ? t.lag.snapshots * 1e12 + (t.lag.seconds || 0) : -1;
    case "lastRun": return t.lastRun && validTime(t.lastRun.startedAt) ? Date.parse(t.lastRun.startedAt) : 0;
    case "rows": return Number(t.rows) || 0;
    default: return t.name;
  }
}

// pageLocally filters, sorts and pages the full list an older floe sends.
function pageLocally(all, set) {
  const q = set.q.toLowerCase();
  let rows = all.filter((t) => (!set.states.length || set.states.includes(t.state)) &&
    (!q || [t.name, t.source, t.connection].some((s) => (s || "").toLowerCase().includes(q))));
  const desc = set.sort.startsWith("-"), by = set.sort.replace(/^-/, "");
  rows.sort((a, b) => {
    const ka = sortKey(a, by), kb = sortKey(b, by);
    const c = ka < kb ? -1 : ka > kb ? 1 : a.name.localeCompare(b.name);
    return desc ? -c : c;
  });
  const pages = Math.max(1, Math.ceil(rows.length / set.pageSize));
  const page = Math.min(set.page, pages);
  return { tables: rows.slice((page - 1) * set.pageSize, page * set.pageSize), page, pages, total: rows.length };
}

// countLocally builds the summary from the full list (older floe).
function countLocally(all) {
  const sum = { tables: all.length, states: {}, rows: 0, lagging: 0 };
  for (const s of STATES) sum.states[s] = 0;
  for (const t of all) {
    sum.states[t.state] = (sum.states[t.state] || 0) + 1;
    sum.rows += Number(t.rows) || 0;
    if (t.lag && t.lag.snapshots > 0) sum.lagging++;
  }
  return sum;
}

// progressNote: "12/40 files" under the badge while a run is under way.
function progressNote(t) {
  const p = t.status.progress;
  if (!p || !(t.state === "RUNNING" || t.state === "BACKFILLING")) return "";
  return h("div", { class: "muted small progress-note" }, `${num(p.filesDone)}/${num(p.filesTotal)} files · ${compact(p.rows)} rows`);
}

export class Overview {
  constructor(root, query) {
    this.set = settings(query);
    this.local = false; // the API sent no pagination: page here
    this.root = root;
    this.build();
  }

  build() {
    this.cards = h("section", { id: "summary", class: "cards" });
    this.search = h("input", { id: "search", type: "search", placeholder: "Search table, source or connection",
      value: this.set.q, oninput: () => this.update({ q: this.search.value.trim(), page: 1 }) });
    this.chips = h("div", { class: "chips", id: "state-filter" });
    this.body = h("tbody");
    this.head = h("tr");
    this.pagerBox = h("div");
    this.empty = h("p", { class: "muted", id: "empty", hidden: true }, "No tables match.");
    this.root.replaceChildren(
      this.cards,
      h("div", { class: "toolbar" }, this.search, this.chips,
        h("a", { class: "button primary", href: "#/onboard" }, "+ Onboard a table")),
      h("div", { class: "table-wrap" }, h("table", { id: "tables" }, h("thead", {}, this.head), this.body)),
      this.empty, this.pagerBox);
  }

  // update changes settings, writes them to the address, reloads.
  update(change) {
    Object.assign(this.set, change);
    history.replaceState(null, "", "#/" + (queryOf(this.set) ? "?" + queryOf(this.set) : ""));
    this.refresh();
  }

  async load() {
    const s = this.set;
    const q = new URLSearchParams({ page: s.page, pageSize: s.pageSize, sort: s.sort });
    if (s.states.length) q.set("state", s.states.join(","));
    if (s.q) q.set("q", s.q);
    const data = await get("/api/v1/tables?" + q);
    const tables = (data.tables || []).map(normalize);
    this.local = typeof data.total !== "number";
    if (this.local) return { page: pageLocally(tables, s), summary: countLocally(tables) };
    let summary;
    try {
      summary = await get("/api/v1/summary");
    } catch (e) {
      if (!(e instanceof ApiError && e.missing)) throw e;
      summary = null;
    }
    return { page: { tables, page: data.page, pages: data.pages, total: data.total }, summary };
  }

  async refresh() {
    const seq = (this.seq = (this.seq || 0) + 1);
    const { page, summary } = await this.load();
    if (seq !== this.seq) return; // a newer refresh (another filter) is under way
    this.renderCards(summary);
    this.renderChips();
    this.renderHead();
    this.renderRows(page.tables);
    this.empty.hidden = page.tables.length > 0;
    this.pagerBox.replaceChildren(page.pages > 1 || this.set.page > 1
      ? pager(page.page, page.pages, page.total, (p) => this.update({ page: p })) : "");
  }

  renderCards(sum) {
    if (!sum) { this.cards.replaceChildren(); return; }
    const card = (label, value, state) => h("button", {
      type: "button", class: "card" + (state ? " " + state : "") + (state && this.set.states.includes(state) ? " on" : ""),
      "data-count": state || label, onclick: state ? () => this.toggle(state) : undefined,
    }, h("span", { class: "count" }, compact(value)), h("span", { class: "label" }, label));
    this.cards.replaceChildren(
      card("tables", sum.tables),
      ...STATES.map((s) => card(s.toLowerCase(), (sum.states || {})[s] || 0, s)),
      card("rows in Pinot", sum.rows),
      card("lagging", sum.lagging));
  }

  toggle(state) {
    const on = this.set.states.includes(state);
    this.update({ states: on ? this.set.states.filter((s) => s !== state) : [...this.set.states, state], page: 1 });
  }

  renderChips() {
    this.chips.replaceChildren(...STATES.map((s) => h("button", {
      type: "button", class: "chip" + (this.set.states.includes(s) ? " on" : ""), "data-filter": s,
      onclick: () => this.toggle(s),
    }, s.toLowerCase())));
  }

  renderHead() {
    const cur = this.set.sort.replace(/^-/, ""), desc = this.set.sort.startsWith("-");
    const th = (key, label) => {
      if (!SORTS[key]) return h("th", {}, label);
      const arrow = cur === key ? (desc ? " ▾" : " ▴") : "";
      return h("th", { class: "sortable" + (key === "rows" ? " num" : ""), "data-sort": key, "aria-sort": cur === key ? (desc ? "descending" : "ascending") : "none",
        onclick: () => this.update({ sort: cur === key && !desc ? "-" + key : key, page: 1 }) }, label + arrow);
    };
    this.head.replaceChildren(th("name", "Table"), th("state", "State"), th("lag", "Lag"), th("lastRun", "Last run"),
      h("th", {}, "Next run"), th("rows", "Rows in Pinot"), h("th", {}, "Last error"));
  }

  renderRows(tables) {
    this.body.replaceChildren(...tables.map((t) => {
      const run = t.lastRun;
      return h("tr", { "data-table": t.name, "data-state": t.state },
        h("td", {}, h("a", { href: "#/tables/" + encodeURIComponent(t.name), class: "name" }, t.name),
          h("div", { class: "muted small" }, [t.source, t.connection].filter(Boolean).join(" · "))),
        h("td", {}, badge(t.state), progressNote(t)),
        h("td", { class: "lag", "data-snapshots": t.lag ? t.lag.snapshots : "",
          title: t.lag ? "newest snapshot " + t.lag.latestSnapshotId + ", checked " + fullTime(t.lag.checkedAt) : "lag unknown" },
        lagText(t.lag, t.state), h("div", { class: "muted small lag-checked" }, lagChecked(t.lag))),
        h("td", { class: "last-run", title: run ? fullTime(run.startedAt) : "" },
          run ? [badge(run.status, "small"), " ", ago(run.startedAt), h("span", { class: "muted" }, " · " + duration(runSeconds(run)))] : "–"),
        h("td", { title: fullTime(t.status.nextRun) }, t.state === "PAUSED" || t.state === "DISABLED" ? "–" : ago(t.status.nextRun)),
        h("td", { class: "num rows" }, num(t.rows)),
        h("td", { class: "err", title: t.lastError || "" }, t.lastError || ""));
    }));
  }

  destroy() {}
}

// The checkpoint section of a table page: the snapshot floe last synced,
// its metadata location, and the file→segment map one page at a time
// (the API pages it; an older floe sends the whole map, paged here).

import { ApiError, get, path } from "./api.js";
import { fullTime, h, num, pager, text } from "./ui.js";

const PAGE_SIZE = 25;

export class CheckpointView {
  constructor(name) {
    this.name = name;
    this.page = 1;
    this.q = "";
    this.summaryBox = h("dl", { class: "facts", id: "checkpoint-summary" });
    this.search = h("input", { type: "search", placeholder: "Filter by file path", oninput: () => {
      this.q = this.search.value.trim();
      this.page = 1;
      this.load().catch((e) => this.fail(e));
    } });
    this.body = h("tbody");
    this.pagerBox = h("div");
    this.msg = h("p", { class: "muted", hidden: true });
    this.el = h("section", { class: "panel", id: "checkpoint" },
      h("h2", {}, "Checkpoint"), this.summaryBox,
      h("div", { class: "toolbar" }, this.search),
      h("div", { class: "table-wrap" }, h("table", { id: "files" },
        h("thead", {}, h("tr", {}, h("th", {}, "Data file"), h("th", {}, "Segments"), h("th", { class: "num" }, "Rows"))),
        this.body)),
      this.msg, this.pagerBox);
    this.snapshotFileCounts = null;
  }

  fail(e) {
    this.msg.hidden = false;
    this.msg.textContent = e instanceof ApiError && e.status === 404 ? "No checkpoint yet: the first run has not committed."
      : "checkpoint: " + e.message;
  }

  // load reads one page; it returns the per-snapshot file counts when the
  // answer carries them.
  async load() {
    const q = new URLSearchParams({ page: this.page, pageSize: PAGE_SIZE });
    if (this.q) q.set("q", this.q);
    let data;
    try {
      data = await get(path`/api/v1/tables/${this.name}/checkpoint` + "?" + q);
    } catch (e) {
      this.body.replaceChildren();
      this.summaryBox.replaceChildren();
      this.pagerBox.replaceChildren();
      this.fail(e);
      return;
    }
    this.msg.hidden = true;
    const page = data.summary ? this.serverPage(data) : this.localPage(data);
    this.snapshotFileCounts = data.snapshotFileCounts || (data.summary && data.summary.snapshotFileCounts) || null;
    this.renderSummary(data.summary || data);
    this.body.replaceChildren(...page.files.map((f) => h("tr", { "data-file": f.path },
      h("td", { class: "path" }, f.path),
      h("td", { class: "segments" }, (f.segments || []).join(", ")),
      h("td", { class: "num" }, num(f.rows)))));
    if (!page.files.length) {
      this.msg.hidden = false;
      this.msg.textContent = this.q ? "No file matches." : "The checkpoint holds no files.";
    }
    this.pagerBox.replaceChildren(page.pages > 1
      ? pager(page.page, page.pages, page.total, (p) => { this.page = p; this.load().catch((e) => this.fail(e)); }) : "");
  }

  serverPage(data) {
    return { files: data.files || [], page: data.page, pages: data.pages, total: data.total };
  }

  localPage(cp) {
    const q = this.q.toLowerCase();
    const all = Object.entries(cp.files || {}).filter(([p]) => !q || p.toLowerCase().includes(q))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([p, f]) => Object.assign({ path: p }, f));
    const pages = Math.max(1, Math.ceil(all.length / PAGE_SIZE));
    this.page = Math.min(this.page, pages);
    return { files: all.slice((this.page - 1) * PAGE_SIZE, this.page * PAGE_SIZE), page: this.page, pages, total: all.length };
  }

  renderSummary(s) {
    const fact = (k, v, cls) => [h("dt", {}, k), h("dd", { class: cls || "" }, v)];
    const facts = [
      fact("Snapshot id", text(s.snapshotId), "snapshot"),
      fact("Sequence number", text(s.sequenceNumber)),
      fact("Metadata location", text(s.metadataLocation), "path"),
      fact("Schema id", text(s.schemaId)),
      fact("Files", num(s.fileCount !== undefined ? s.fileCount : Object.keys(s.files || {}).length)),
      fact("Rows", num(s.rows)),
      fact("Committed", fullTime(s.committedAt) || "–"),
    ];
    if (s.backfill) {
      facts.push(fact("Backfill", `${num(s.backfill.filesDone)} of ${num(s.backfill.filesTotal)} files towards snapshot ${s.backfill.snapshotId}`));
    }
    this.summaryBox.replaceChildren(...facts.flat());
  }
}

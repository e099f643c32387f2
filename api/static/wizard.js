// The onboarding wizard (#/onboard): connection → validate → browse →
// schema → options and create; it then lands on the new table's page,
// where the first run shows.

import { ApiError, get, path, post } from "./api.js";
import { ConnectionForm, isAWS, typeLabel } from "./connform.js";
import { IAMPanel } from "./iam.js";
import { SchemaEditor } from "./schemaedit.js";
import { h, outcome } from "./ui.js";

const STEPS = ["Connection", "Validate", "Browse", "Schema", "Options"];

export class Wizard {
  constructor(root) {
    this.root = root;
    this.state = { step: 0, conn: null, ns: "", table: "", overrides: {}, name: "" };
    this.stepsEl = h("ol", { class: "steps", id: "wizard-steps" });
    this.body = h("div", { class: "wizard-body" });
    this.msg = h("p", { class: "outcome", id: "wizard-msg", role: "status", hidden: true });
    root.replaceChildren(h("a", { href: "#/", class: "back" }, "‹ all tables"),
      h("h1", {}, "Onboard an Iceberg table"), this.stepsEl, this.msg, this.body);
    this.go(0);
  }

  go(step) {
    this.state.step = step;
    this.msg.hidden = true;
    this.stepsEl.replaceChildren(...STEPS.map((s, i) => h("li", {
      class: i === step ? "current" : i < step ? "done" : "", "data-step": s.toLowerCase(),
    }, h("span", { class: "n" }, String(i + 1)), s)));
    const render = [() => this.connection(), () => this.validate(), () => this.browse(), () => this.schema(), () => this.options()][step];
    render().catch((e) => this.fail(e));
  }

  // fail shows an error in the banner and scrolls it into view: a form
  // submitted from below the fold would otherwise seem to do nothing.
  fail(e) {
    outcome(this.msg, false, e.message);
    this.msg.scrollIntoView({ block: "center" });
  }

  refresh() { return Promise.resolve(); } // the wizard does not poll

  destroy() {}

  // Step 1: a saved connection, or a new one (saved before validating).
  async connection() {
    const [{ connections }, types] = await Promise.all([get("/api/v1/connections"), this.catalogTypes()]);
    const iamBox = h("div");
    let form = null;
    form = new ConnectionForm(types, () => form && this.showIAM(iamBox, form));
    this.showIAM(iamBox, form);
    const saved = (connections || []).length ? h("section", { class: "panel" }, h("h2", {}, "Use a saved connection"),
      h("div", { class: "pick" }, ...connections.map((c) => h("button", { type: "button", class: "choice", "data-connection": c.name,
        onclick: () => { this.state.conn = c; this.go(1); } },
      h("strong", {}, c.name), h("span", { class: "muted" }, ` ${c.type}`),
      (c.secretKeys || []).length ? h("span", { class: "muted small" }, ` · secrets set: ${c.secretKeys.join(", ")}`) : "")))) : "";
    const save = h("button", { type: "submit", class: "primary", id: "conn-save" }, "Save and validate");
    const formEl = h("form", { class: "panel", id: "conn-form", onsubmit: (ev) => { ev.preventDefault(); this.save(form, save); } },
      h("h2", {}, "New connection"), form.el, h("div", { class: "buttons" }, save));
    this.body.replaceChildren(saved, formEl, iamBox);
  }

  // catalogTypes is GET /api/v1/catalog-types, read once.
  async catalogTypes() {
    if (!this.types) this.types = (await get("/api/v1/catalog-types")).types;
    return this.types;
  }

  showIAM(box, form) {
    const v = form.value();
    const aws = String(isAWS(v.type, v.props));
    if (box.dataset.aws === aws) return; // keep what the panel shows while typing
    box.dataset.aws = aws;
    box.replaceChildren(aws === "true" ? new IAMPanel(() => form.value(), false).el : "");
  }

  async save(form, btn) {
    btn.disabled = true;
    try {
      const v = form.value();
      const { data } = await post("/api/v1/connections", v);
      form.clearSecrets();
      this.state.conn = data;
      this.go(1);
    } catch (e) {
      this.fail(e);
    } finally {
      btn.disabled = false;
    }
  }

  // Step 2: the catalog's own step-by-step check.
  async validate() {
    const c = this.state.conn;
    const types = await this.catalogTypes();
    const list = h("ul", { class: "checks", id: "validate-steps" }, h("li", { class: "muted" }, "validating…"));
    const next = h("button", { type: "button", class: "primary", id: "to-browse", disabled: true, onclick: () => this.go(2) }, "Browse tables");
    this.body.replaceChildren(h("section", { class: "panel" },
      h("h2", {}, `Validate ${c.name} (${typeLabel(types, c.type)})`), list,
      h("div", { class: "buttons" },
        h("button", { type: "button", class: "ghost", id: "to-connection", onclick: () => this.go(0) }, "‹ Connection"),
        h("button", { type: "button", class: "ghost", onclick: () => this.go(1) }, "Validate again"), next)),
    isAWS(c.type, c.props || {}) ? new IAMPanel(() => c, true).el : "");
    let data;
    try {
      ({ data } = await post(path`/api/v1/connections/${c.name}/validate`, {}));
    } catch (e) {
      // The catalog could not even be opened: that is the first step's result.
      list.replaceChildren(h("li", { class: "check failed", "data-check": "open" }, h("span", { class: "icon" }, "✕"),
        h("strong", {}, "open the catalog"), h("div", { class: "error" }, e.message)));
      outcome(this.msg, false, "The connection does not work: see the failed step.");
      return;
    }
    list.replaceChildren(...(data.steps || []).map((s) => h("li", { class: "check " + s.status, "data-check": s.name },
      h("span", { class: "icon" }, s.status === "ok" ? "✓" : s.status === "failed" ? "✕" : "–"),
      h("strong", {}, s.name), " ", h("span", { class: "muted" }, s.detail || (s.status === "skipped" ? "skipped" : "")),
      s.error ? h("div", { class: "error" }, s.error) : "",
      s.permission ? h("div", { class: "hint" }, `Missing permission: ${s.permission}` + (s.resource ? ` on ${s.resource}` : "")) : "")),
    ...(data.notes || []).map((n) => h("li", { class: "note" }, n)));
    next.disabled = !data.ok;
    outcome(this.msg, data.ok, data.ok ? "The connection works." : "A step failed: see its hint.");
  }

  // Step 3: namespaces (nested ones through ?parent=) and their tables.
  async browse() {
    const nsBox = h("div", { class: "pick", id: "namespaces" });
    const tblBox = h("div", { class: "pick", id: "catalog-tables" });
    const crumbs = h("p", { class: "muted" });
    this.body.replaceChildren(h("section", { class: "panel" }, h("h2", {}, `Browse ${this.state.conn.name}`), crumbs,
      h("h3", {}, "Namespaces"), nsBox, h("h3", {}, "Tables"), tblBox,
      h("div", { class: "buttons" }, h("button", { type: "button", class: "ghost", onclick: () => this.go(1) }, "‹ Validate"))));
    const open = async (parent) => {
      crumbs.replaceChildren(parent ? `namespace ${parent} ` : "top level",
        parent ? h("button", { type: "button", class: "ghost", onclick: () => open(parent.split(".").slice(0, -1).join(".")) }, "↑ up") : "");
      await this.listInto(nsBox, path`/api/v1/connections/${this.state.conn.name}/namespaces` + (parent ? "?parent=" + encodeURIComponent(parent) : ""),
        "namespaces", (ns) => h("button", { type: "button", class: "choice", "data-namespace": ns, onclick: () => open(ns) }, ns));
      tblBox.replaceChildren();
      if (parent) {
        await this.listInto(tblBox, path`/api/v1/connections/${this.state.conn.name}/namespaces/${parent}/tables`, "tables",
          (t) => h("button", { type: "button", class: "choice", "data-catalog-table": t.name,
            onclick: () => { Object.assign(this.state, { ns: t.namespace, table: t.name, overrides: {}, name: "" }); this.go(3); } }, t.name));
      }
    };
    await open(this.state.ns || "");
  }

  // listInto fills box with one page of a catalog listing and a "more"
  // button while the catalog has further pages.
  async listInto(box, url, key, item, token) {
    const sep = url.includes("?") ? "&" : "?";
    const data = await get(url + sep + "pageSize=100" + (token ? "&pageToken=" + encodeURIComponent(token) : ""));
    if (!token) box.replaceChildren();
    box.querySelector(".more")?.remove();
    const items = data[key] || [];
    if (!items.length && !token) box.appendChild(h("span", { class: "muted" }, "none"));
    for (const it of items) box.appendChild(item(it));
    if (data.nextPageToken) {
      box.appendChild(h("button", { type: "button", class: "ghost more", onclick: () => this.listInto(box, url, key, item, data.nextPageToken) }, "more…"));
    }
  }

  // Step 4: the inferred schema, editable within the field-type rules.
  async schema() {
    this.editor = new SchemaEditor(this.state, () => this.go(4), () => this.go(2));
    this.body.replaceChildren(this.editor.el);
    await this.editor.load();
  }

  // Step 5: schedule, time column, file errors; then create.
  async options() {
    const p = this.editor && this.editor.preview;
    if (!p) return this.go(3);
    const s = this.state;
    const dt = (p.columns || []).filter((c) => c.fieldType === "DATE_TIME").map((c) => c.name);
    const schedule = h("input", { id: "opt-schedule", value: s.schedule || "0 */5 * * * ?", spellcheck: "false" });
    const timeCol = h("select", { id: "opt-time-column" }, h("option", { value: "" }, "(none)"),
      ...dt.map((c) => h("option", { value: c }, c)));
    timeCol.value = s.noTimeColumn ? "" : p.timeColumn || "";
    const cont = h("input", { id: "opt-continue", type: "checkbox", checked: !!s.continueOnFileError });
    const create = h("button", { type: "submit", class: "primary", id: "create-table" }, "Create table and sync");
    this.body.replaceChildren(h("form", { class: "panel", onsubmit: (ev) => {
      ev.preventDefault();
      Object.assign(s, { schedule: schedule.value.trim(), continueOnFileError: cont.checked });
      this.create(timeCol.value, create);
    } },
    h("h2", {}, `Options for ${p.schema.schemaName}`),
    h("div", { class: "form" },
      h("label", {}, "Schedule (Quartz or cron; the first run starts at once)", schedule),
      h("label", {}, "Time column", timeCol),
      h("label", { class: "checkbox" }, cont, " Continue when one data file cannot be converted (it is skipped and reported)")),
    h("p", { class: "muted" }, `${s.ns}.${s.table} via ${s.conn.name} → Pinot table ${p.schema.schemaName}, ` +
      `${(p.columns || []).length} columns` + (Object.keys(s.overrides).length ? `, ${Object.keys(s.overrides).length} edited` : "")),
    h("div", { class: "buttons" },
      h("button", { type: "button", class: "ghost", onclick: () => this.go(3) }, "‹ Schema"), create)));
  }

  async create(timeColumn, btn) {
    const s = this.state;
    const body = { connection: s.conn.name, namespace: s.ns, table: s.table, overrides: this.editor.overrideArgs(),
      schedule: s.schedule, taskConfig: { continueOnFileError: String(!!s.continueOnFileError) } };
    if (s.name) body.name = s.name;
    if (timeColumn) body.timeColumn = timeColumn; else body.noTimeColumn = true;
    btn.disabled = true;
    try {
      const { data } = await post("/api/v1/tables", body);
      location.hash = "#/tables/" + encodeURIComponent(data.name);
    } catch (e) {
      btn.disabled = false;
      if (e instanceof ApiError && e.status === 409) {
        // The name was taken meanwhile: back to the step with the field.
        s.nameError = e.message;
        this.go(3);
        return;
      }
      this.fail(e);
    }
  }
}

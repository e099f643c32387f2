// The schema step of the wizard: floe's inferred Pinot schema, one row a
// column, with the edits Pinot allows (package schema is the source of
// truth; every edit is previewed by floe again, which names the column
// when an edit is refused). Lossy mappings are flagged.

import { ApiError, get, path, post } from "./api.js";
import { h, outcome } from "./ui.js";

// Data types an Iceberg type may also map to (schema/doc.go, type table).
const DATA_TYPES = {
  int: ["INT", "LONG"],
  float: ["FLOAT", "DOUBLE"],
  date: ["INT", "TIMESTAMP"],
  timestamp: ["TIMESTAMP", "LONG"],
  timestamptz: ["TIMESTAMP", "LONG"],
  timestamp_ns: ["TIMESTAMP", "LONG"],
  timestamptz_ns: ["TIMESTAMP", "LONG"],
};

// fieldTypes: the field types a data type allows (a LONG can be a
// dimension, metric or date-time; a TIMESTAMP only a date-time).
export function fieldTypes(dataType, singleValue) {
  if (!singleValue) return ["DIMENSION"];
  switch (dataType) {
    case "INT": case "LONG": return ["DIMENSION", "METRIC", "DATE_TIME"];
    case "FLOAT": case "DOUBLE": case "BIG_DECIMAL": return ["DIMENSION", "METRIC"];
    case "TIMESTAMP": return ["DATE_TIME"];
    default: return ["DIMENSION"];
  }
}

export class SchemaEditor {
  constructor(state, next, back) {
    this.state = state;
    this.preview = null;
    this.name = h("input", { id: "pinot-name", value: state.name, placeholder: "derived from namespace and table",
      spellcheck: "false", onchange: () => { state.name = this.name.value.trim(); state.nameError = ""; this.load(); } });
    this.body = h("tbody");
    this.msg = h("p", { class: "outcome", id: "schema-msg", hidden: true });
    this.nextBtn = h("button", { type: "button", class: "primary", id: "to-options", onclick: next, disabled: true }, "Options ›");
    this.el = h("section", { class: "panel", id: "schema-editor" },
      h("h2", {}, `Schema of ${state.ns}.${state.table}`),
      h("label", { class: "inline" }, "Pinot table name ", this.name),
      this.msg,
      h("div", { class: "table-wrap" }, h("table", { id: "columns" },
        h("thead", {}, h("tr", {}, ...["Column", "Iceberg type", "Pinot data type", "Field type", "Not null", "Mapping"].map((c) => h("th", {}, c)))),
        this.body)),
      h("div", { class: "buttons" }, h("button", { type: "button", class: "ghost", onclick: back }, "‹ Browse"), this.nextBtn));
  }

  // overrideArgs: the request's overrides, column → "DATATYPE,FIELDTYPE".
  overrideArgs() {
    const out = {};
    for (const [col, o] of Object.entries(this.state.overrides)) {
      const v = [o.dataType, o.fieldType].filter(Boolean).join(",");
      if (v) out[col] = v;
    }
    return out;
  }

  // load previews the schema under the name asked for (or floe's own),
  // then checks the name here, on the step that has the field: a name a
  // table already has is refused beside it, and floe's own name, when
  // taken, gives way to the first free one (name_2, name_3, …).
  async load() {
    const s = this.state;
    const body = { connection: s.conn.name, namespace: s.ns, table: s.table, overrides: this.overrideArgs() };
    if (s.name) body.name = s.name;
    this.nextBtn.disabled = true;
    try {
      const { data } = await post("/api/v1/tables/preview", body);
      this.preview = data;
      this.render(data);
      const name = data.schema.schemaName;
      if (!s.name) this.name.placeholder = name;
      if (await tableExists(name)) {
        const free = s.name ? "" : await freeName(name);
        if (free) {
          s.name = free;
          this.name.value = free;
          this.note = `A table named ${name} exists already; the free name ${free} is suggested.`;
          return this.load();
        }
        this.refuseName(s.nameError || `A table named ${name} exists already: choose another Pinot table name.`);
        return;
      }
      s.nameError = "";
      this.name.removeAttribute("aria-invalid");
      if (this.note) outcome(this.msg, true, this.note); else this.msg.hidden = true;
      this.note = "";
      this.nextBtn.disabled = false;
    } catch (e) {
      outcome(this.msg, false, e.message);
    }
  }

  // refuseName shows why the name cannot be used beside the field.
  refuseName(msg) {
    this.name.setAttribute("aria-invalid", "true");
    outcome(this.msg, false, msg);
    this.msg.dataset.field = "pinot-name";
    this.name.focus();
  }

  edit(col, change) {
    const o = Object.assign({}, this.state.overrides[col.name], change);
    if (change.dataType && o.fieldType && !fieldTypes(change.dataType, col.singleValue).includes(o.fieldType)) {
      delete o.fieldType; // floe falls back to the first allowed one
    }
    this.state.overrides[col.name] = o;
    this.load();
  }

  render(p) {
    this.body.replaceChildren(...(p.columns || []).map((c) => {
      const dts = (c.singleValue && DATA_TYPES[c.icebergType]) || [c.dataType];
      const fts = fieldTypes(c.dataType, c.singleValue);
      const select = (opts, cur, cls, onchange) => h("select", { class: cls, disabled: opts.length < 2, onchange,
        title: opts.length < 2 ? `${cur} is the only choice here` : "" }, ...opts.map((o) => h("option", { value: o, selected: o === cur }, o)));
      return h("tr", { "data-column": c.name, class: c.lossy ? "lossy" : "" },
        h("td", { class: "name" }, c.name, p.timeColumn === c.name ? h("span", { class: "tag" }, "time") : ""),
        h("td", { class: "muted" }, c.icebergType),
        h("td", {}, select(dts, c.dataType, "data-type", (ev) => this.edit(c, { dataType: ev.target.value }))),
        h("td", {}, select(fts, c.fieldType, "field-type", (ev) => this.edit(c, { fieldType: ev.target.value }))),
        h("td", {}, c.notNull ? "yes" : ""),
        h("td", { class: "mapping" }, c.lossy ? h("span", { class: "lossy-flag", title: c.lossy }, "⚠ lossy: " + c.lossy)
          : h("span", { class: "muted" }, "exact")));
    }));
  }
}

// tableExists asks floe whether a table of that name is registered.
async function tableExists(name) {
  try {
    await get(path`/api/v1/tables/${name}`);
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return false;
    throw e;
  }
}

// freeName is the first of name_2 … name_20 no table has ("" if none).
async function freeName(name) {
  for (let i = 2; i <= 20; i++) {
    if (!(await tableExists(`${name}_${i}`))) return `${name}_${i}`;
  }
  return "";
}

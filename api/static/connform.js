// The connection form of the onboarding wizard: one set of fields per
// catalog type floe reads, as GET /api/v1/catalog-types answers them from
// package catalog's own definitions; secrets in password fields that are
// never filled from anything the API sent.

import { h } from "./ui.js";

// isAWS: the connection reaches AWS, so an IAM policy applies.
export function isAWS(type, props) {
  return type === "s3tables" || type === "glue" || (props.sigv4 === "true") ||
    String(props.warehouse || "").startsWith("s3://");
}

// typeLabel is the label of a connection type, or its name.
export function typeLabel(types, type) {
  return ((types || []).find((t) => t.type === type) || {}).label || type;
}

// ConnectionForm builds the fields of types (the catalog-types answer)
// and reads them back.
export class ConnectionForm {
  constructor(types, onTypeChange) {
    this.types = types;
    this.onTypeChange = onTypeChange;
    this.name = h("input", { id: "conn-name", name: "name", required: true, placeholder: "lake", autocomplete: "off",
      pattern: "[A-Za-z0-9][A-Za-z0-9_.\\-]*" });
    this.type = h("select", { id: "conn-type", name: "type", onchange: () => this.renderFields() },
      ...types.map((t) => h("option", { value: t.type }, t.label)));
    this.fields = h("div", { class: "fields" });
    this.extra = h("textarea", { id: "conn-extra", rows: 2, placeholder: "more props, one key=value a line (timeout=30s, endpoint=...)" });
    this.el = h("div", { class: "form" },
      h("label", {}, "Connection name", this.name),
      h("label", {}, "Catalog type", this.type),
      this.fields,
      h("label", {}, "More props", this.extra));
    this.renderFields();
  }

  renderFields() {
    const t = this.types.find((x) => x.type === this.type.value);
    const changed = () => this.onTypeChange && this.onTypeChange();
    // A prop with choices is a select; without a default it offers "(default)" first.
    const field = (p) => h("label", {}, p.description + (p.required ? " *" : ""),
      p.choices ? h("select", { name: "prop:" + p.name, onchange: changed },
        ...(p.default ? p.choices : ["", ...p.choices]).map((c) => h("option", { value: c }, c || "(default)")))
        : h("input", { name: "prop:" + p.name, required: !!p.required, autocomplete: "off", spellcheck: "false",
          oninput: changed }));
    const secret = (p) => h("label", {}, p.description,
      h("input", { name: "secret:" + p.name, type: "password", autocomplete: "new-password", spellcheck: "false" }));
    this.fields.replaceChildren(
      h("fieldset", {}, h("legend", {}, "Properties"), ...t.props.filter((p) => !p.secret).map(field)),
      h("fieldset", {}, h("legend", {}, "Secrets (write-only: floe never shows them again)"),
        ...t.props.filter((p) => p.secret).map(secret)));
    if (this.onTypeChange) this.onTypeChange();
  }

  // value reads the form: {name, type, props, secrets}; empty fields are
  // left out.
  value() {
    const props = {}, secrets = {};
    for (const el of this.fields.querySelectorAll("[name]")) {
      const [kind, key] = el.name.split(/:(.*)/s);
      const v = el.value.trim();
      if (!v) continue;
      (kind === "secret" ? secrets : props)[key] = v;
    }
    for (const line of this.extra.value.split("\n")) {
      const i = line.indexOf("=");
      if (i > 0) props[line.slice(0, i).trim()] = line.slice(i + 1).trim();
    }
    return { name: this.name.value.trim(), type: this.type.value, props, secrets };
  }

  // clearSecrets empties every secret field once the connection is saved.
  clearSecrets() {
    for (const el of this.fields.querySelectorAll("input[type=password]")) el.value = "";
  }
}

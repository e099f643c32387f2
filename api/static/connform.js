// The connection form of the onboarding wizard: one set of fields per
// catalog type floe reads (see package catalog), secrets in password
// fields that are never filled from anything the API sent.

import { h } from "./ui.js";

const AWS_SECRETS = [
  ["access-key-id", "AWS access key id"],
  ["secret-access-key", "AWS secret access key"],
  ["session-token", "AWS session token"],
];
const AWS_ROLE = [
  ["role-arn", "IAM role to assume (arn:aws:iam::<account>:role/<name>)"],
  ["external-id", "External id of that role"],
];

// TYPES: props are [key, label, required, choices]; secrets [key, label].
export const TYPES = {
  sql: {
    label: "SQL catalog (sqlite, Postgres)",
    props: [["uri", "Database: a sqlite file path or a postgres:// URL", true], ["catalog-name", "Catalog name (catalog_name column)"],
      ["warehouse", "Warehouse"], ["dialect", "Dialect", false, ["", "sqlite", "postgres"]]],
    secrets: [["password", "Password (Postgres)"]],
  },
  rest: {
    label: "Iceberg REST catalog",
    props: [["uri", "Catalog URL", true], ["warehouse", "Warehouse"], ["prefix", "Prefix"], ["scope", "OAuth2 scope"],
      ["oauth2-server-uri", "OAuth2 server URL"], ["sigv4", "Sign requests with AWS SigV4", false, ["", "true"]],
      ["signing-name", "SigV4 signing name"], ["signing-region", "SigV4 signing region"], ["region", "AWS region"], ...AWS_ROLE],
    secrets: [["credential", "OAuth2 client credential (id:secret)"], ["token", "Bearer token"], ...AWS_SECRETS],
  },
  s3tables: {
    label: "Amazon S3 Tables",
    props: [["arn", "Table bucket ARN (arn:aws:s3tables:<region>:<account>:bucket/<name>)", true],
      ["mode", "Mode", false, ["auto", "rest", "native"]], ["region", "Region (from the ARN)"], ...AWS_ROLE],
    secrets: AWS_SECRETS,
  },
  glue: {
    label: "AWS Glue",
    props: [["region", "Region", true], ["catalog-id", "Catalog id (12-digit account id)"],
      ["mode", "Mode", false, ["native", "rest"]], ["warehouse", "Warehouse (REST mode)"], ...AWS_ROLE],
    secrets: AWS_SECRETS,
  },
  hadoop: {
    label: "Hadoop warehouse (files)",
    props: [["warehouse", "Warehouse: a file path, file:// or s3:// URL", true], ["region", "AWS region (s3://)"], ...AWS_ROLE],
    secrets: AWS_SECRETS,
  },
};

// isAWS: the connection reaches AWS, so an IAM policy applies.
export function isAWS(type, props) {
  return type === "s3tables" || type === "glue" || (props.sigv4 === "true") ||
    String(props.warehouse || "").startsWith("s3://");
}

// ConnectionForm builds the fields and reads them back.
export class ConnectionForm {
  constructor(onTypeChange) {
    this.onTypeChange = onTypeChange;
    this.name = h("input", { id: "conn-name", name: "name", required: true, placeholder: "lake", autocomplete: "off",
      pattern: "[A-Za-z0-9][A-Za-z0-9_.\\-]*" });
    this.type = h("select", { id: "conn-type", name: "type", onchange: () => this.renderFields() },
      ...Object.entries(TYPES).map(([k, t]) => h("option", { value: k }, t.label)));
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
    const t = TYPES[this.type.value];
    const field = ([key, label, required, choices]) => h("label", {}, label + (required ? " *" : ""),
      choices ? h("select", { name: "prop:" + key, onchange: () => this.onTypeChange && this.onTypeChange() },
        ...choices.map((c) => h("option", { value: c }, c || "(default)")))
        : h("input", { name: "prop:" + key, required: !!required, autocomplete: "off", spellcheck: "false",
          oninput: () => this.onTypeChange && this.onTypeChange() }));
    const secret = ([key, label]) => h("label", {}, label,
      h("input", { name: "secret:" + key, type: "password", autocomplete: "new-password", spellcheck: "false" }));
    this.fields.replaceChildren(
      h("fieldset", {}, h("legend", {}, "Properties"), ...t.props.map(field)),
      h("fieldset", {}, h("legend", {}, "Secrets (write-only: floe never shows them again)"), ...t.secrets.map(secret)));
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

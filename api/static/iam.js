// The least-privilege IAM panel of the wizard: floe generates the reader
// role's policy (and trust policy, and a CloudFormation template) for an
// AWS connection, saved (GET) or still in the form (POST, secrets left
// out).

import { download, get, path, post } from "./api.js";
import { h, pretty } from "./ui.js";

export class IAMPanel {
  // source() returns {name, type, props} of the connection; saved says
  // whether it is stored already (then the GET variant is used).
  constructor(source, saved) {
    this.source = source;
    this.saved = saved;
    this.principal = h("input", { placeholder: "123456789012 or arn:aws:iam::...:role/floe", autocomplete: "off" });
    this.data = h("input", { placeholder: "s3://bucket/prefix of the table files (glue, REST)", autocomplete: "off" });
    this.out = h("div", { class: "iam-out" });
    this.el = h("details", { class: "panel iam", id: "iam-panel" },
      h("summary", {}, "Least-privilege IAM policy for this connection"),
      h("p", { class: "muted" }, "floe only reads: the policy grants the catalog and file reads this connection needs, nothing more."),
      h("div", { class: "form row" },
        h("label", {}, "floe's principal (trusted to assume the role)", this.principal),
        h("label", {}, "Data location", this.data)),
      h("div", { class: "buttons" },
        h("button", { type: "button", id: "iam-generate", onclick: () => this.generate() }, "Generate policy"),
        h("button", { type: "button", class: "ghost", onclick: () => this.template() }, "Download CloudFormation")),
      this.out);
  }

  options() {
    const o = {};
    if (this.principal.value.trim()) o.trustedPrincipal = this.principal.value.trim();
    if (this.data.value.trim()) o.data = [this.data.value.trim()];
    return o;
  }

  async generate() {
    const c = this.source();
    try {
      let res;
      if (this.saved) {
        const q = new URLSearchParams();
        const o = this.options();
        if (o.trustedPrincipal) q.set("trustedPrincipal", o.trustedPrincipal);
        for (const d of o.data || []) q.append("data", d);
        res = await get(path`/api/v1/connections/${c.name}/iam-policy` + "?" + q);
      } else {
        res = (await post(path`/api/v1/connections/${c.name || "new"}/iam-policy`,
          { type: c.type, props: c.props, options: this.options() })).data;
      }
      this.render(res);
    } catch (e) {
      this.out.replaceChildren(h("p", { class: "error" }, e.message));
    }
  }

  render(res) {
    const role = (r, what) => !r ? "" : h("div", { class: "role" },
      h("h3", {}, `${what}: ${r.name}`),
      h("pre", { class: "json", "data-policy": what }, pretty(r.policy)),
      policyButtons(pretty(r.policy), `floe-${r.name}-policy.json`, what),
      r.trustPolicy ? [h("p", { class: "muted" }, "Trust policy"), h("pre", { class: "json" }, pretty(r.trustPolicy))]
        : h("p", { class: "muted" }, "The trust policy follows once floe's principal is given."));
    this.out.replaceChildren(role(res.reader, "Reader role"), role(res.middle, "Middle role"),
      ...(res.notes || []).map((n) => h("p", { class: "note" }, n)));
  }

  async template() {
    const c = this.source();
    try {
      await download(path`/api/v1/connections/${c.name || "new"}/cloudformation`,
        { type: c.type, props: c.props, options: this.options() }, `floe-${c.name || "connection"}.yaml`);
    } catch (e) {
      this.out.replaceChildren(h("p", { class: "error" }, e.message));
    }
  }
}

// policyButtons copies a policy document to the clipboard or saves it as
// a file, and says which happened (data-copied names the role).
function policyButtons(text, filename, what) {
  const said = h("span", { class: "muted", "data-copied": what });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      said.textContent = "Copied.";
    } catch (e) {
      said.textContent = `Copy refused by the browser (${e.message}): select the text above instead.`;
    }
  };
  const save = () => {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    a.download = filename;
    a.click();
    URL.revokeObjectURL(a.href);
    said.textContent = `Saved as ${filename}.`;
  };
  return h("div", { class: "buttons" },
    h("button", { type: "button", class: "ghost", "data-copy": what, onclick: copy }, "Copy policy"),
    h("button", { type: "button", class: "ghost", "data-download": what, onclick: save }, "Download policy (JSON)"),
    said);
}

// Talking to floe's JSON API from the status page.
//
// The API token lives in this browser tab's sessionStorage only: never in
// a cookie, never sent anywhere but floe's own API. A link ending in
// #token=... hands the page a token once and is removed from the address.
// Writes are same-origin fetches with a JSON body and Content-Type, so they
// pass floe's cross-origin and content-type checks (api/guard.go).

export const TOKEN_KEY = "floe.token";

// NeedToken: the API answered 401; the page shows the token form.
export class NeedToken extends Error {}

// ApiError carries the HTTP status and the API's own error message.
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
  // missing: the route or field is not served by this floe (an older
  // server): the page falls back to what it can show.
  get missing() { return this.status === 404 || this.status === 405 || this.status === 501; }
}

export function takeTokenFromHash() {
  const m = location.hash.match(/^#token=(.+)$/);
  if (!m) return;
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
  history.replaceState(null, "", location.pathname + location.search + "#/");
}

export function hasToken() { return !!sessionStorage.getItem(TOKEN_KEY); }
export function setToken(tok) { sessionStorage.setItem(TOKEN_KEY, tok); }
export function forgetToken() { sessionStorage.removeItem(TOKEN_KEY); }

function headers(extra) {
  const h = Object.assign({ Accept: "application/json" }, extra);
  const tok = sessionStorage.getItem(TOKEN_KEY);
  if (tok) h.Authorization = "Bearer " + tok;
  return h;
}

// Snapshot ids are 64-bit: JSON.parse would round them. Keep the source
// text of any integer a double cannot hold exactly (where the browser
// gives the reviver the source; elsewhere the rounded number shows).
function parse(body) {
  if (!body) return {};
  return JSON.parse(body, (key, value, context) =>
    typeof value === "number" && !Number.isSafeInteger(value) && Number.isInteger(value) && context && context.source
      ? context.source : value);
}

async function call(method, url, body, extra) {
  const init = { method, headers: headers(extra), credentials: "same-origin", cache: "no-store" };
  if (method !== "GET") {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body === undefined ? {} : body);
  }
  const resp = await fetch(url, init);
  if (resp.status === 401) throw new NeedToken();
  const text = await resp.text();
  let data = {};
  const json = (resp.headers.get("Content-Type") || "").includes("json");
  if (json) {
    try { data = parse(text); } catch { data = {}; }
  }
  if (!resp.ok) {
    const msg = (json && data.error) || `HTTP ${resp.status}`;
    throw new ApiError(resp.status, msg);
  }
  return { status: resp.status, data };
}

export async function get(url) { return (await call("GET", url)).data; }
export function post(url, body, extra) { return call("POST", url, body, extra); }
export function patch(url, body, extra) { return call("PATCH", url, body, extra); }
export function del(url) { return call("DELETE", url); }

// path builds an API path from literal parts and encoded values:
// path`/api/v1/tables/${name}/runs`.
export function path(strings, ...values) {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? encodeURIComponent(values[i]) : ""), "");
}

// download fetches a file with the token and hands it to the browser.
export async function download(url, body, filename) {
  const resp = await fetch(url, {
    method: "POST", headers: headers({ "Content-Type": "application/json" }), body: JSON.stringify(body),
  });
  if (!resp.ok) {
    const data = await resp.json().catch(() => ({}));
    throw new ApiError(resp.status, data.error || `HTTP ${resp.status}`);
  }
  const blob = await resp.blob();
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = filename;
  a.click();
  URL.revokeObjectURL(a.href);
}

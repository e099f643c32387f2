// Small inline SVG bar charts (no library): one bar per point, failed
// points drawn in the failure colour with a marker, a tooltip per bar.

import { compact, h } from "./ui.js";

const NS = "http://www.w3.org/2000/svg";
const W = 600, H = 170, PAD = { top: 14, right: 8, bottom: 22, left: 44 };

function s(tag, attrs, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  for (const c of children) el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  return el;
}

// niceMax rounds the largest value up to 1, 2 or 5 times a power of ten.
function niceMax(v) {
  if (v <= 0) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

// AXIS_CHAR is a generous width of one axis label character (11px
// sans-serif digits and units) in viewBox units, so the left margin fits
// the longest y label ("1.5 min") instead of clipping it.
const AXIS_CHAR = 7;

// leftPad is the room the y labels need: their longest plus a gap.
function leftPad(labels) {
  return Math.max(PAD.left, 10 + AXIS_CHAR * Math.max(...labels.map((l) => String(l).length)));
}

// barChart draws points [{value, label, failed, tip, parts, id}] under a
// title; fmt prints axis values. A point's parts ([{value, cls}]) stack
// in one bar (e.g. files added, then rebuilt); a point whose value is
// null is unknown (a record that does not say): no bar, a "?" mark.
// legend ([{cls, label}]) names the parts. key names the chart for tests
// (data-chart).
export function barChart(key, title, points, fmt, legend) {
  fmt = fmt || compact;
  const fig = h("figure", { class: "chart", "data-chart": key },
    h("figcaption", {}, title, ...(legend || []).map((l) => h("span", { class: "legend " + l.cls }, l.label))));
  if (!points.length) {
    fig.appendChild(h("p", { class: "muted empty-chart" }, "no runs yet"));
    return fig;
  }
  const max = niceMax(Math.max(...points.map((p) => Number(p.value) || 0)));
  const ticks = [0, 0.5, 1].map((f) => ({ f, label: fmt(max * f) }));
  const left = leftPad(ticks.map((t) => t.label));
  const iw = W - left - PAD.right, ih = H - PAD.top - PAD.bottom;
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title });
  for (const t of ticks) {
    const y = PAD.top + ih - t.f * ih;
    svg.appendChild(s("line", { x1: left, x2: W - PAD.right, y1: y, y2: y, class: "grid" }));
    svg.appendChild(s("text", { x: left - 6, y: y + 4, class: "axis", "text-anchor": "end" }, t.label));
  }
  const step = iw / points.length;
  const bw = Math.max(2, Math.min(28, step * 0.7));
  points.forEach((p, i) => svg.appendChild(bar(p, left + i * step + (step - bw) / 2, bw, max, ih, fmt)));
  const first = points[0], last = points[points.length - 1];
  svg.appendChild(s("text", { x: left, y: H - 6, class: "axis" }, first.label || ""));
  if (points.length > 1) {
    svg.appendChild(s("text", { x: W - PAD.right, y: H - 6, class: "axis", "text-anchor": "end" }, last.label || ""));
  }
  fig.appendChild(svg);
  return fig;
}

// bar draws one point at x: its parts stacked from the axis up, a "?"
// when its value is unknown, a "✕" above a failed one.
function bar(p, x, bw, max, ih, fmt) {
  const unknown = p.value === null || p.value === undefined;
  const g = s("g", { class: "bar" + (p.failed ? " failed" : "") + (unknown ? " unknown" : ""),
    "data-value": unknown ? "" : String(Number(p.value) || 0), "data-run": p.id || "" });
  g.appendChild(s("title", {}, p.tip || `${p.label}: ${unknown ? "not recorded" : fmt(p.value)}`));
  const parts = p.parts || [{ value: p.value, cls: "" }];
  let top = PAD.top + ih;
  for (const part of parts) {
    const v = Math.max(0, Number(part.value) || 0);
    if (unknown || (v === 0 && parts.length > 1)) continue;
    const bh = Math.max(v > 0 ? 1.5 : 0, (v / max) * ih);
    top -= bh;
    g.appendChild(s("rect", { x, y: top, width: bw, height: bh, rx: Math.min(3, bw / 3), class: part.cls || "",
      "data-part": part.cls || "", "data-failed": p.failed ? "true" : "false" }));
  }
  if (unknown) {
    g.appendChild(s("text", { x: x + bw / 2, y: PAD.top + ih - 3, class: "axis", "text-anchor": "middle" }, "?"));
  }
  if (p.failed) {
    g.appendChild(s("text", { x: x + bw / 2, y: top - 3, class: "mark", "text-anchor": "middle" }, "✕"));
  }
  return g;
}

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

// barChart draws points [{value, label, failed, tip}] under a title;
// fmt prints axis values. key names the chart for tests (data-chart).
export function barChart(key, title, points, fmt) {
  fmt = fmt || compact;
  const fig = h("figure", { class: "chart", "data-chart": key },
    h("figcaption", {}, title));
  if (!points.length) {
    fig.appendChild(h("p", { class: "muted empty-chart" }, "no runs yet"));
    return fig;
  }
  const max = niceMax(Math.max(...points.map((p) => Number(p.value) || 0)));
  const iw = W - PAD.left - PAD.right, ih = H - PAD.top - PAD.bottom;
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title });
  for (const f of [0, 0.5, 1]) {
    const y = PAD.top + ih - f * ih;
    svg.appendChild(s("line", { x1: PAD.left, x2: W - PAD.right, y1: y, y2: y, class: "grid" }));
    svg.appendChild(s("text", { x: PAD.left - 6, y: y + 4, class: "axis", "text-anchor": "end" }, fmt(max * f)));
  }
  const step = iw / points.length;
  const bw = Math.max(2, Math.min(28, step * 0.7));
  points.forEach((p, i) => {
    const v = Math.max(0, Number(p.value) || 0);
    const bh = Math.max(v > 0 ? 1.5 : 0, (v / max) * ih);
    const x = PAD.left + i * step + (step - bw) / 2;
    const g = s("g", { class: "bar" + (p.failed ? " failed" : "") });
    g.appendChild(s("title", {}, p.tip || `${p.label}: ${fmt(v)}`));
    g.appendChild(s("rect", { x, y: PAD.top + ih - bh, width: bw, height: bh, rx: Math.min(3, bw / 3),
      "data-failed": p.failed ? "true" : "false" }));
    if (p.failed) {
      g.appendChild(s("text", { x: x + bw / 2, y: PAD.top + ih - bh - 3, class: "mark", "text-anchor": "middle" }, "✕"));
    }
    svg.appendChild(g);
  });
  const first = points[0], last = points[points.length - 1];
  svg.appendChild(s("text", { x: PAD.left, y: H - 6, class: "axis" }, first.label || ""));
  if (points.length > 1) {
    svg.appendChild(s("text", { x: W - PAD.right, y: H - 6, class: "axis", "text-anchor": "end" }, last.label || ""));
  }
  fig.appendChild(svg);
  return fig;
}

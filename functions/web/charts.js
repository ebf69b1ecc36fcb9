// Bars for score breakdowns and token budgets, and one small retention curve per memory (inline SVG).

import { clamp01, fixed, formatDay, h, svg } from "./dom.js";

const HOUR_MS = 3600 * 1000;
const SCORE_PARTS = ["similarity", "lexical", "importance", "recency", "retention"];

export function bar(value, kind = "") {
  const fill = h("span", { class: `fill ${kind}` });
  fill.style.width = `${(clamp01(value) * 100).toFixed(1)}%`;
  return h("span", { class: "bar", "aria-hidden": "true" }, fill);
}

export function tokenBar(used, budget) {
  const meter = h("div", {
    class: "budget", role: "meter", "aria-valuemin": 0, "aria-valuemax": budget, "aria-valuenow": used,
    "aria-label": "Recalled tokens against the budget",
  }, bar(budget > 0 ? used / budget : 0, "tokens"), h("span", { class: "num", text: `${used} / ${budget} tokens` }));
  return meter;
}

function scoreCell(value, part) {
  return h("td", { class: "score-cell" }, bar(value, part), h("span", { class: "num", text: fixed(value) }));
}

export function scoreTable(items) {
  const head = h("tr", null, h("th", { scope: "col", text: "memory" }),
    SCORE_PARTS.map((part) => h("th", { scope: "col", class: `col-${part}`, text: part.slice(0, 3), title: part })),
    h("th", { scope: "col", text: "score" }), h("th", { scope: "col", text: "tok" }));
  const rows = items.map((item) => h("tr", null,
    h("th", { scope: "row", class: "memory-text" }, h("span", { class: `kind kind-${item.kind}`, text: item.kind }),
      ` ${item.text}`),
    SCORE_PARTS.map((part) => scoreCell(item.score[part], part)),
    h("td", { class: "num strong", text: fixed(item.score.score) }),
    h("td", { class: "num", text: String(item.tokens) })));
  return h("div", { class: "table-wrap" }, h("table", { class: "scores" },
    h("caption", { class: "visually-hidden", text: "Recalled memories with their score breakdown" }),
    h("thead", null, head), h("tbody", null, rows)));
}

export function retentionAt(memory, nowMs) {
  const hours = Math.max(0, (nowMs - Date.parse(memory.last_accessed_at)) / HOUR_MS);
  return Math.exp(-hours / Math.max(memory.stability_hours, 1e-9));
}

export function floorCrossing(memory, floor) {
  const hours = memory.stability_hours * Math.log(1 / floor);
  return new Date(Date.parse(memory.last_accessed_at) + hours * HOUR_MS);
}

function curvePath(stability, spanHours, x, y) {
  const steps = 48;
  const points = [];
  for (let i = 0; i <= steps; i += 1) {
    const t = (spanHours * i) / steps;
    points.push(`${i === 0 ? "M" : "L"}${x(t).toFixed(1)},${y(Math.exp(-t / stability)).toFixed(1)}`);
  }
  return points.join(" ");
}

export function describeRetention(memory, nowMs, floor, critical) {
  const now = retentionAt(memory, nowMs);
  if (critical) return `retention ${fixed(now)} now; critical, never decays`;
  const crossing = floorCrossing(memory, floor);
  const verb = crossing.getTime() <= nowMs ? "fell below" : "falls below";
  return `retention ${fixed(now)} now; ${verb} the decay floor ${floor} on ${formatDay(crossing)}`;
}

export function retentionChart(memory, nowMs, floor, critical) {
  const width = 300;
  const height = 60;
  const pad = 4;
  const elapsed = Math.max(0, (nowMs - Date.parse(memory.last_accessed_at)) / HOUR_MS);
  const toFloor = memory.stability_hours * Math.log(1 / floor);
  const span = Math.min(Math.max(elapsed * 1.2, toFloor * 1.15, 24), 24 * 365 * 3);
  const x = (t) => pad + ((width - 2 * pad) * Math.min(t, span)) / span;
  const y = (r) => pad + (height - 2 * pad) * (1 - r);
  const nowR = retentionAt(memory, nowMs);
  const label = describeRetention(memory, nowMs, floor, critical);
  return svg("svg", { class: `curve${critical ? " critical" : ""}`, viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": label },
  svg("title", { text: label }),
  svg("line", { class: "floor", x1: pad, x2: width - pad, y1: y(floor), y2: y(floor) }),
  svg("path", { class: "line", d: curvePath(memory.stability_hours, span, x, y) }),
  svg("line", { class: "now", x1: x(elapsed), x2: x(elapsed), y1: pad, y2: height - pad }),
  svg("circle", { class: nowR < floor && !critical ? "dot faded" : "dot", cx: x(elapsed), cy: y(nowR), r: 3.5 }));
}

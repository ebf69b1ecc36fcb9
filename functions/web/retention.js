// Retention: every memory with its forgetting curve R(t) = exp(-t / S) against the decay floor.

import { describeRetention, retentionAt, retentionChart } from "./charts.js";
import { byId, clear, fixed, h } from "./dom.js";

const SHOWN_AT_MOST = 60;
const LIVE = new Set(["active", "decayed"]);

function isCritical(memory, clock) {
  return memory.critical || memory.importance >= clock.critical_importance;
}

function actions(memory) {
  if (memory.status === "deleted") return null;
  const short = memory.text.length > 40 ? `${memory.text.slice(0, 40)}…` : memory.text;
  return h("div", { class: "row-actions" },
    h("button", { type: "button", class: "small-button", dataset: { forget: memory.id }, "aria-label": `Forget “${short}”` },
      "Forget"),
    h("button", { type: "button", class: "small-button danger", dataset: { purge: memory.id },
      "aria-label": `Purge “${short}”` }, "Purge"));
}

function memoryItem(memory, clock, nowMs) {
  const critical = isCritical(memory, clock);
  const description = describeRetention(memory, nowMs, clock.decay_floor, critical);
  return h("li", { class: `memory status-${memory.status}`, id: `memory-${memory.id}` },
    h("div", { class: "memory-head" },
      h("span", { class: `kind kind-${memory.kind}`, text: memory.kind }),
      h("span", { class: `status status-${memory.status}`, text: memory.status }),
      critical ? h("span", { class: "status critical", text: "critical" }) : null,
      h("span", { class: "memory-text", text: memory.text })),
    retentionChart(memory, nowMs, clock.decay_floor, critical),
    h("p", { class: "muted small" }, `${description} · S ${fixed(memory.stability_hours, 0)} h · `
      + `importance ${fixed(memory.importance)} · recalled ${memory.access_count}×`),
    actions(memory));
}

function ordered(memories, filter, nowMs) {
  const chosen = memories.filter((m) => filter === "all" || LIVE.has(m.status));
  const rank = (m) => (m.status === "active" ? 0 : m.status === "decayed" ? 1 : 2);
  return chosen.sort((a, b) => rank(a) - rank(b) || retentionAt(b, nowMs) - retentionAt(a, nowMs));
}

export function renderRetention(model, clock) {
  const nowMs = Date.parse(clock.now);
  const filter = byId("retention-filter").value;
  const memories = ordered([...model.memories.values()], filter, nowMs);
  byId("retention-legend").textContent = `dashed line: decay floor ${clock.decay_floor}; dot: now`;
  const items = memories.slice(0, SHOWN_AT_MOST).map((m) => memoryItem(m, clock, nowMs));
  if (memories.length > SHOWN_AT_MOST) {
    items.push(h("li", { class: "muted", text: `${memories.length - SHOWN_AT_MOST} more not shown` }));
  }
  clear(byId("retention-list"), items.length ? items : h("li", { class: "muted", text: "No memories yet." }));
}

// Beliefs: what is true now, what was believed on any past day (the as-of slider), and a subject's full history.

import { query } from "./api.js";
import { byId, clear, formatDay, formatTime, h } from "./dom.js";
import { beliefLink } from "./feed.js";

const DAY_MS = 24 * 3600 * 1000;

function startOfDay(ms) {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}

function beliefItem(belief) {
  return h("li", { class: "belief", id: `belief-${belief.id}` },
    h("button", { type: "button", class: "subject", dataset: { subject: belief.subject },
      "aria-label": `History of ${belief.subject}: ${belief.predicate}` }, belief.subject),
    h("span", { class: "predicate", text: belief.predicate.replaceAll("_", " ") }),
    h("span", { class: "object", text: belief.object }),
    h("span", { class: "muted small", text: `since ${formatDay(new Date(belief.valid_from))}` }));
}

function interval(from, to) {
  return `${formatTime(from)} → ${to ? formatTime(to) : "now"}`;
}

function historyItem(belief, all) {
  const successor = belief.superseded_by ? all.find((b) => b.id === belief.superseded_by) : null;
  let status = h("span", { class: "status-current", text: "current" });
  if (successor) status = h("span", null, "superseded by ", beliefLink(successor, "history-link"));
  else if (!belief.current) status = h("span", { class: "muted", text: "retired" });
  return h("li", { id: `history-${belief.id}`, tabindex: "-1", class: belief.current ? "current" : "past" },
    belief.current ? h("span", { class: "object", text: belief.object }) : h("del", { class: "object", text: belief.object }),
    " ", status,
    h("span", { class: "axes small muted" }, h("span", { text: `true in the world ${interval(belief.valid_from, belief.valid_to)}` }),
      h("span", { text: `known to the engine ${interval(belief.recorded_at, belief.expired_at)}` })));
}

function steadyItem(belief) {
  const since = belief.expired_at ? `until ${formatTime(belief.expired_at)}` : `since ${formatTime(belief.valid_from)}`;
  return h("li", { id: `history-${belief.id}`, tabindex: "-1", class: belief.current ? "current" : "past" },
    h("span", { class: "predicate", text: `${belief.predicate.replaceAll("_", " ")} ` }),
    belief.current ? h("span", { class: "object", text: belief.object }) : h("del", { class: "object", text: belief.object }),
    h("span", { class: "muted small", text: ` ${since}` }));
}

// Predicates that changed are shown in full; those that never changed are named in one line.
function historyGroups(beliefs) {
  const groups = new Map();
  for (const belief of beliefs) groups.set(belief.predicate, [...(groups.get(belief.predicate) || []), belief]);
  const changed = [...groups.entries()].filter(([, items]) => items.length > 1);
  const steady = [...groups.values()].filter((items) => items.length === 1).map(([b]) => b);
  const items = changed.map(([predicate, group]) => h("li", { class: "history-group" },
    h("h4", { text: predicate.replaceAll("_", " ") }), h("ol", null, group.map((b) => historyItem(b, beliefs)))));
  if (steady.length) {
    items.push(h("li", { class: "history-group" }, h("h4", { text: "never changed" }),
      h("ol", null, steady.map(steadyItem))));
  }
  return items;
}

export class BeliefsView {
  constructor(api, report) {
    this.api = api;
    this.report = report;
    this.slider = byId("as-of");
    this.firstDayMs = null;
    this.nowMs = Date.now();
    this.shown = 0; // answers to older slider positions must not overwrite newer ones
    this.slider.addEventListener("input", () => this.showSelected());
    byId("as-of-now").addEventListener("click", () => {
      this.slider.value = this.slider.max;
      this.showSelected();
    });
  }

  atNow() {
    return Number(this.slider.value) >= Number(this.slider.max);
  }

  // The slider spans whole UTC days from the first belief to the engine's today; the last step is "now".
  update(model, nowIso) {
    const wasAtNow = this.atNow() || this.firstDayMs === null;
    this.nowMs = Date.parse(nowIso);
    const starts = [...model.beliefs.values()].map((b) => Date.parse(b.valid_from));
    this.firstDayMs = startOfDay(starts.length ? Math.min(...starts) : this.nowMs);
    this.slider.max = String(Math.round((startOfDay(this.nowMs) - this.firstDayMs) / DAY_MS));
    this.slider.disabled = starts.length === 0;
    if (wasAtNow) this.slider.value = this.slider.max;
    return this.showSelected();
  }

  selectedMoment() {
    const end = this.firstDayMs + (Number(this.slider.value) + 1) * DAY_MS - 1;
    return new Date(Math.min(end, this.nowMs));
  }

  async showSelected() {
    const label = byId("as-of-label");
    const atNow = this.atNow();
    const moment = this.selectedMoment();
    label.textContent = atNow ? "now" : formatDay(moment);
    this.slider.setAttribute("aria-valuetext", atNow ? "now" : `end of ${formatDay(moment)}`);
    const ticket = ++this.shown;
    try {
      const found = await this.api.get(query("/beliefs", { as_of: atNow ? null : moment.toISOString() }));
      if (ticket !== this.shown) return;
      const list = byId("belief-list");
      list.dataset.asOf = atNow ? "now" : formatDay(moment);
      clear(list, found.items.length ? found.items.map(beliefItem)
        : h("li", { class: "muted", text: atNow ? "No beliefs yet." : "Nothing was believed then." }));
    } catch (error) {
      this.report(error);
    }
  }

  async showHistory(subject, focusId = null) {
    try {
      const found = await this.api.get(query("/beliefs", { subject }));
      byId("history").hidden = false;
      const title = byId("history-title");
      title.textContent = `History of ${subject}`;
      clear(byId("history-list"), historyGroups(found.items));
      const row = focusId ? byId(`history-${focusId}`) : null;
      if (row) row.classList.add("focus");
      (row || title).focus();
    } catch (error) {
      this.report(error);
    }
  }
}

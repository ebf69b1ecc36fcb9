// One card per action: what was recalled (with the score breakdown) and every decision the engine logged.

import { scoreTable, tokenBar } from "./charts.js";
import { fixed, formatDuration, formatTime, h, plural } from "./dom.js";

const ORDER = ["superseded", "stored", "not_stored", "coexisted", "discarded", "undecided", "decayed", "archived",
  "consolidated", "forgotten", "purged", "clock_advanced", "dream_proposed", "dream_applied", "dream_rejected",
  "fallback", "reply_failed", "imported", "reembedded"];
const HIDDEN = new Set(["recalled", "observed"]);

function badge(kind) {
  return h("span", { class: `badge badge-${kind}`, text: kind.replace("_", " ") });
}

function memoryText(model, id) {
  const memory = model.memories.get(id);
  return memory ? memory.text : `memory ${id}`;
}

export function beliefLink(belief, className = "successor") {
  return h("a", { class: className, href: `#belief-${belief.id}`, dataset: { beliefId: belief.id, subject: belief.subject } },
    belief.statement);
}

function supersededItems(events, model) {
  const byBelief = new Map();
  for (const event of events) byBelief.set(event.belief_id, [...(byBelief.get(event.belief_id) || []), event]);
  return [...byBelief.values()].map((group) => {
    const first = group[0];
    const old = model.beliefs.get(first.belief_id);
    const next = model.beliefs.get(first.detail.successor);
    const episodes = group.filter((e) => e.detail.reason === "asserted superseded belief").length;
    return h("li", { class: "decision superseded" }, badge("superseded"),
      h("del", { class: "old-belief", id: `card-old-${first.belief_id}` }, old ? old.statement : first.belief_id),
      h("span", { class: "arrow", "aria-hidden": "true", text: " → " }),
      h("span", { class: "visually-hidden", text: " superseded by " }),
      next ? beliefLink(next) : h("span", { text: first.detail.successor }),
      h("span", { class: "muted small", text: ` ${first.detail.path} path`
        + (episodes ? `; ${plural(episodes, "episode")} asserting it stop surfacing it` : "") }));
  });
}

function storedItem(event, model) {
  const d = event.detail;
  return h("li", { class: "decision stored" }, badge("stored"),
    h("span", { class: `kind kind-${d.memory_kind}`, text: d.memory_kind }), ` ${memoryText(model, event.memory_id)}`,
    h("span", { class: "muted small", text: ` importance ${fixed(d.importance)}` }));
}

function notStoredItem(event, card) {
  const d = event.detail;
  if (d.reason) {
    return h("li", { class: "decision not-stored quiet" }, badge("not_stored"),
      h("span", { class: "muted", text: `the reply (${d.reason})` }));
  }
  const what = card.message ? `“${card.message}”` : `message ${event.message_id}`;
  return h("li", { class: "decision not-stored" }, badge("not_stored"), `${what} `,
    h("span", { class: "muted small", text: `importance ${fixed(d.importance)} is under the threshold ${fixed(d.threshold)}` }));
}

function beliefItem(event, model, text) {
  const belief = model.beliefs.get(event.belief_id);
  return h("li", { class: `decision ${event.kind}` }, badge(event.kind), belief ? belief.statement : event.belief_id,
    h("span", { class: "muted small", text: ` ${text(event.detail)}` }));
}

function archivedItems(events, model) {
  const byGist = new Map();
  for (const event of events) byGist.set(event.detail.gist, [...(byGist.get(event.detail.gist) || []), event]);
  return [...byGist.entries()].map(([gist, group]) => h("li", { class: "decision archived" }, badge("archived"),
    `${plural(group.length, "faded memory", "faded memories")} folded into the gist `, h("q", { text: memoryText(model, gist) }),
    h("ul", { class: "members" }, group.map((e) => h("li", { class: "muted", text: memoryText(model, e.memory_id) })))));
}

const SIMPLE = {
  decayed: (e, m) => [`${e.detail.memory_kind || "memory"} `, h("q", { text: memoryText(m, e.memory_id) }),
    h("span", { class: "muted small", text: " retention fell below the floor: out of recall, kept" })],
  consolidated: (e) => [e.detail.scope === "session" ? `session ${e.detail.session}: ${plural(e.detail.facts, "fact")}`
    : `sleep cycle: ${plural(e.detail.gists ?? 0, "gist")}`],
  forgotten: (e, m) => [h("q", { text: memoryText(m, e.memory_id) }), h("span", { class: "muted small", text: " kept for audit" })],
  purged: (e) => [`memory ${e.memory_id}: text, vector and derived text deleted`],
  clock_advanced: (e) => [`clock moved ${formatDuration(e.detail.seconds / 3600)}`],
  dream_proposed: (e) => [`${plural(e.detail.actions, "action")} proposed, ${e.detail.rejected} rejected`],
  dream_applied: (e) => [`${e.detail.action} (${e.detail.action_kind}) applied`],
  dream_rejected: (e) => [`${e.detail.action || "an action"}: ${e.detail.reason}`],
  fallback: (e) => [`${e.detail.purpose}: ${e.detail.reason}`],
  reply_failed: (e) => [`${e.detail.model}: ${e.detail.reason}`],
};

function simpleItem(event, model) {
  const describe = SIMPLE[event.kind] || ((e) => [JSON.stringify(e.detail)]);
  return h("li", { class: `decision ${event.kind}` }, badge(event.kind), describe(event, model));
}

function decisionItems(kind, events, model, card) {
  if (kind === "superseded") return supersededItems(events, model);
  if (kind === "archived") return archivedItems(events, model);
  if (kind === "stored") return events.map((e) => storedItem(e, model));
  if (kind === "not_stored") return events.map((e) => notStoredItem(e, card));
  if (kind === "coexisted") {
    const statement = (id) => model.beliefs.get(id)?.statement ?? id;
    return events.map((e) => beliefItem(e, model, (d) => `holds alongside “${statement(d.new_belief)}”`));
  }
  if (kind === "discarded" || kind === "undecided") {
    return events.map((e) => beliefItem(e, model, (d) => `${d.reason || "no verdict"} (${d.path} path)`));
  }
  if (kind === "consolidated") return events.filter((e) => !e.memory_id).map((e) => simpleItem(e, model));
  return events.map((e) => simpleItem(e, model));
}

function groupByKind(events) {
  const groups = new Map();
  for (const event of events.filter((e) => !HIDDEN.has(e.kind))) {
    groups.set(event.kind, [...(groups.get(event.kind) || []), event]);
  }
  const known = ORDER.filter((kind) => groups.has(kind));
  return [...known, ...[...groups.keys()].filter((kind) => !ORDER.includes(kind))].map((k) => [k, groups.get(k)]);
}

function recallSection(recall) {
  const title = h("h4", { text: "Recalled" });
  if (!recall.items.length) return h("div", { class: "recall" }, title, tokenBar(recall.tokens_used, recall.budget_tokens),
    h("p", { class: "muted small", text: "Nothing recalled: nothing stored matched yet." }));
  return h("div", { class: "recall" }, title, tokenBar(recall.tokens_used, recall.budget_tokens), scoreTable(recall.items));
}

export function renderCard(card, model) {
  const decisions = groupByKind(card.events).flatMap(([kind, events]) => decisionItems(kind, events, model, card));
  return h("li", { class: `card card-${card.action}`, id: `card-${card.n}`, "aria-labelledby": `card-${card.n}-title` },
    h("header", null,
      h("h3", { id: `card-${card.n}-title`, tabindex: "-1" }, h("span", { class: "card-n", text: `#${card.n}` }), ` ${card.title}`),
      h("span", { class: "muted small", text: `${card.session ? `${card.session} · ` : ""}${formatTime(card.at)}` })),
    card.message ? h("p", { class: "said" }, h("span", { class: "who", text: "you said " }), h("q", { text: card.message })) : null,
    card.chat ? recallSection(card.chat.recall) : null,
    decisions.length ? h("div", { class: "decisions" }, card.chat ? h("h4", { text: "Decisions" }) : null,
      h("ul", { "aria-label": "Decisions" }, decisions))
      : h("p", { class: "muted small", text: "No decisions logged." }));
}

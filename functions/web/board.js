// The memory board: state, the API key, actions (chat, clock, maintenance, forget) and the refresh after each.

import { createApi, describeError, query } from "./api.js";
import { BeliefsView } from "./beliefs.js";
import { byId, clear, formatDuration, formatTime, h } from "./dom.js";
import { renderCard } from "./feed.js";
import { renderRetention } from "./retention.js";

const KEY_STORAGE = "engram.apiKey";
const SESSION_STORAGE = "engram.sessions";
const PAGE = 500;
const MAX_PAGES = 4;
const EVENT_PAGE = 1000;

const state = {
  key: null, clock: null, cursor: null, seen: new Set(), cards: 0, busy: false, retryTimer: null,
  model: { memories: new Map(), beliefs: new Map() }, sessions: [], session: "session-1",
};
const api = createApi(() => state.key);
const beliefs = new BeliefsView(api, showError);

// -- messages to the user -------------------------------------------------------------------
function announce(text) {
  byId("status").textContent = text;
}

function clearError() {
  clearInterval(state.retryTimer);
  byId("alert").hidden = true;
  byId("alert").textContent = "";
}

function countDown(seconds) {
  let left = seconds;
  state.retryTimer = setInterval(() => {
    left -= 1;
    byId("alert").textContent = left > 0 ? `Too many requests (429): try again in ${left} s.`
      : "You can try again now.";
    if (left <= 0) clearInterval(state.retryTimer);
  }, 1000);
}

function showError(error) {
  if (error.status === 401 && error.key !== state.key) return; // a late reply for a key already forgotten
  clearError();
  const box = byId("alert");
  box.textContent = describeError(error);
  box.hidden = false;
  if (error.status === 401) signOut(false);
  if (error.status === 429 && error.retryAfter) countDown(error.retryAfter);
}

// -- the API key ----------------------------------------------------------------------------------
function showConnected(connected, tenant = "") {
  byId("key-form").hidden = connected;
  byId("key-status").hidden = !connected;
  byId("app").hidden = !connected;
  byId("tenant-name").textContent = tenant;
}

function signOut(clearAlert = true) {
  sessionStorage.removeItem(KEY_STORAGE);
  state.key = null;
  showConnected(false);
  if (clearAlert) clearError();
  byId("api-key").focus();
}

async function signIn(key) {
  state.key = key;
  try {
    const stats = await api.get("/stats");
    sessionStorage.setItem(KEY_STORAGE, key);
    clearError();
    showConnected(true, stats.tenant);
    state.cursor = stats.stats.now;
    await refresh();
    announce(`Connected to tenant ${stats.tenant}.`);
    byId("chat-input").focus();
  } catch (error) {
    showError(error);
  }
}

// -- the model the views draw from --------------------------------------------------------------
async function loadMemories() {
  const found = [];
  for (let page = 0, offset = 0; page < MAX_PAGES && offset !== null; page += 1) {
    const batch = await api.get(query("/memories", { limit: PAGE, offset }));
    found.push(...batch.items);
    offset = batch.next_offset;
  }
  return found;
}

async function loadEvents() {
  const fresh = [];
  for (let page = 0; page < 10; page += 1) {
    const batch = await api.get(query("/events", { since: state.cursor, limit: EVENT_PAGE }));
    const unseen = batch.items.filter((e) => !state.seen.has(e.id));
    unseen.forEach((e) => state.seen.add(e.id));
    fresh.push(...unseen);
    if (batch.items.length) state.cursor = batch.items[batch.items.length - 1].at;
    if (batch.items.length < EVENT_PAGE) break;
  }
  return fresh;
}

async function loadBeliefs(memories) {
  const current = await api.get("/beliefs");
  const subjects = new Set(["user", ...current.items.map((b) => b.subject), ...memories.map((m) => m.subject)]);
  subjects.delete(null);
  const histories = await Promise.all([...subjects].map((s) => api.get(query("/beliefs", { subject: s }))));
  return histories.flatMap((found) => found.items);
}

function renderClock() {
  const time = byId("engine-now");
  time.textContent = formatTime(state.clock.now);
  time.setAttribute("datetime", state.clock.now);
  byId("clock-offset").textContent = state.clock.offset_hours
    ? `(clock offset ${formatDuration(state.clock.offset_hours)})` : "(real time)";
}

async function refresh() {
  const [clock, memories, events] = await Promise.all([api.get("/clock"), loadMemories(), loadEvents()]);
  const allBeliefs = await loadBeliefs(memories);
  state.clock = clock;
  state.model = { memories: new Map(memories.map((m) => [m.id, m])), beliefs: new Map(allBeliefs.map((b) => [b.id, b])) };
  renderClock();
  renderRetention(state.model, clock);
  rememberSessions(memories.map((m) => m.session_id));
  await beliefs.update(state.model, clock.now);
  return events;
}

// -- actions: run one, refresh, show a card of everything the engine decided -------------------
function setBusy(busy) {
  state.busy = busy;
  byId("app").setAttribute("aria-busy", String(busy));
}

function addCard(card) {
  state.cards += 1;
  const node = renderCard({ ...card, n: state.cards, at: state.clock.now }, state.model);
  byId("feed").prepend(node);
  byId("feed-empty").hidden = true;
  return node;
}

async function act(run, describe) {
  if (state.busy) {
    announce("Still working on the last action.");
    return null;
  }
  setBusy(true);
  clearError();
  try {
    const result = await run();
    const events = await refresh();
    const card = addCard({ ...describe(result), events });
    announce(`${card.querySelector("h3").textContent} done.`);
    return result;
  } catch (error) {
    showError(error);
    return null;
  } finally {
    setBusy(false);
  }
}

// -- chat and sessions ---------------------------------------------------------------------------
function chatLine(role, text, extra = "") {
  const who = role === "user" ? `you · ${state.session}` : "engram";
  const item = h("li", { class: `msg ${role} ${extra}` }, h("span", { class: "who", text: who }), h("p", { text }));
  byId("chat-log").append(item);
  item.scrollIntoView({ block: "nearest" });
  return item;
}

async function sendChat(event) {
  event.preventDefault();
  const input = byId("chat-input");
  const message = input.value.trim();
  if (!message) return;
  const line = chatLine("user", message, "pending");
  const session = state.session;
  const body = { message, session_id: session, budget_tokens: Number(byId("budget").value) };
  const result = await act(() => api.post("/chat", body),
    (r) => ({ action: "chat", title: "chat turn", session, message, chat: r }));
  line.classList.remove("pending");
  if (result === null) {
    line.classList.add("failed");
    line.append(h("span", { class: "small", text: " (not sent)" }));
    return;
  }
  input.value = "";
  chatLine("assistant", result.reply);
}

function renderSessions() {
  const select = byId("session");
  clear(select, state.sessions.map((name) => h("option", { value: name, text: name })));
  select.value = state.session;
}

function rememberSessions(names) {
  const known = new Set(state.sessions);
  const added = names.filter((n) => n && !known.has(n));
  if (!added.length && state.sessions.length) return;
  state.sessions = [...new Set([...state.sessions, ...added, state.session])].sort();
  sessionStorage.setItem(SESSION_STORAGE, JSON.stringify(state.sessions));
  renderSessions();
}

function newSession() {
  const numbers = state.sessions.map((n) => Number.parseInt((n.match(/^session-(\d+)$/) || [])[1], 10))
    .filter(Number.isFinite);
  state.session = `session-${Math.max(0, ...numbers) + 1}`;
  rememberSessions([state.session]);
  byId("chat-log").append(h("li", { class: "divider", text: `new session: ${state.session}` }));
  announce(`Switched to the new session ${state.session}.`);
}

// -- controls -------------------------------------------------------------------------------------
function confirmAction(title, text, ok) {
  const dialog = byId("confirm");
  byId("confirm-title").textContent = title;
  byId("confirm-text").textContent = text;
  byId("confirm-ok").textContent = ok;
  return openDialog(dialog).then((value) => value === "ok");
}

// A dialog's "close" event is dispatched a task after it closes: when the dialog is
// reopened before that, the stale event must not answer the new opening.
let dialogOpenings = 0;

function openDialog(dialog) {
  const opening = ++dialogOpenings;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    const onClose = () => {
      if (opening !== dialogOpenings) return resolve("");
      if (dialog.open) return dialog.addEventListener("close", onClose, { once: true });
      return resolve(dialog.returnValue);
    };
    dialog.addEventListener("close", onClose, { once: true });
  });
}

async function forgetMemory(id, purge) {
  const memory = state.model.memories.get(id);
  const text = memory ? `“${memory.text}”` : id;
  const ok = purge
    ? await confirmAction("Purge this memory?", `${text}: its text, vector and derived text are deleted for good. `
      + "This cannot be undone.", "Purge")
    : await confirmAction("Forget this memory?", `${text} leaves recall; it stays in the store for audit.`, "Forget");
  if (!ok) return;
  const done = await act(() => api.del(query(`/memories/${encodeURIComponent(id)}`, { purge: purge || null })),
    () => ({ action: purge ? "purge" : "forget", title: purge ? "purge" : "forget" }));
  if (done) byId(`card-${state.cards}`).querySelector("h3").focus();
}

function chooseDreamActions(proposal) {
  const dialog = byId("dream-dialog");
  byId("dream-summary").textContent = `${proposal.actions.length} proposed; nothing is applied unless approved.`;
  clear(byId("dream-actions"), h("legend", { text: "Approve the actions to apply" }), proposal.actions.map((a) =>
    h("label", { class: "dream-action" }, h("input", { type: "checkbox", name: "approved", value: a.id }),
      ` ${a.id} · ${a.action}: ${a.text || a.memory_ids.map((id) => state.model.memories.get(id)?.text || id).join(" + ")}`,
      h("span", { class: "muted small", text: ` (${a.reason})` }))));
  return openDialog(dialog).then((value) => (value === "apply"
    ? [...dialog.querySelectorAll("input[name=approved]:checked")].map((i) => i.value) : []));
}

async function dream() {
  const proposal = await act(() => api.post("/dream"), () => ({ action: "dream", title: "dream: proposal" }));
  if (!proposal || !proposal.actions.length) return;
  const approved = await chooseDreamActions(proposal);
  if (!approved.length) return announce("Nothing applied.");
  await act(() => api.post("/dream/apply", { proposal_id: proposal.id, approved }),
    () => ({ action: "dream", title: `dream: applied ${approved.join(", ")}` }));
}

const ADVANCE_TITLES = { "1d": "clock +1 day", "1w": "clock +1 week", "3w": "clock +3 weeks" };

function onClick(event) {
  const target = event.target.closest("button, a");
  if (!target) return;
  const { advance, forget, purge, beliefId, subject } = target.dataset;
  if (advance) act(() => api.post("/clock/advance", { duration: advance }), () => ({ action: "clock", title: ADVANCE_TITLES[advance] }));
  else if (forget) forgetMemory(forget, false);
  else if (purge) forgetMemory(purge, true);
  else if (subject) {
    event.preventDefault();
    beliefs.showHistory(subject, beliefId || null);
  }
}

function wire() {
  byId("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = byId("api-key");
    const key = input.value.trim();
    input.value = "";
    if (key) signIn(key);
  });
  byId("sign-out").addEventListener("click", () => signOut());
  byId("chat-form").addEventListener("submit", sendChat);
  byId("new-session").addEventListener("click", newSession);
  byId("session").addEventListener("change", (event) => { state.session = event.target.value; });
  byId("sleep").addEventListener("click", () => act(() => api.post("/sleep"), () => ({ action: "sleep", title: "sleep cycle" })));
  byId("consolidate").addEventListener("click", () => act(() => api.post("/consolidate", { session_id: state.session }),
    () => ({ action: "consolidate", title: `consolidate ${state.session}`, session: state.session })));
  byId("dream").addEventListener("click", dream);
  byId("retention-filter").addEventListener("change", () => state.clock && renderRetention(state.model, state.clock));
  document.addEventListener("click", onClick);
}

function start() {
  wire();
  state.sessions = JSON.parse(sessionStorage.getItem(SESSION_STORAGE) || "[]");
  rememberSessions([state.session]);
  const saved = sessionStorage.getItem(KEY_STORAGE);
  if (saved) signIn(saved);
  else byId("api-key").focus();
}

start();

// Small DOM and formatting helpers. Text always goes in as text, never as markup.

const SVG_NS = "http://www.w3.org/2000/svg";

function applyProps(node, props) {
  for (const [name, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.setAttribute("class", value);
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function h(tag, props, ...children) {
  const node = document.createElement(tag);
  applyProps(node, props);
  return append(node, children);
}

export function svg(tag, props, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  applyProps(node, props);
  return append(node, children);
}

export function clear(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

export function byId(id) {
  return document.getElementById(id);
}

const pad = (n) => String(n).padStart(2, "0");

export function formatTime(iso) {
  if (!iso) return "–";
  const d = new Date(iso);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} `
    + `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

export function formatDay(date) {
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

export function formatDuration(hours) {
  const sign = hours < 0 ? "−" : "+";
  const h = Math.abs(hours);
  if (h >= 48) return `${sign}${Math.round(h / 24)} d`;
  if (h >= 1) return `${sign}${Math.round(h)} h`;
  return `${sign}${Math.round(h * 60)} min`;
}

export function fixed(value, digits = 2) {
  return Number(value).toFixed(digits);
}

export function clamp01(value) {
  return Math.min(1, Math.max(0, Number(value) || 0));
}

export function plural(count, word, many = `${word}s`) {
  return `${count} ${count === 1 ? word : many}`;
}

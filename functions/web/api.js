// The HTTP API as the board uses it: one way to send a request, one error type, one way to say what went wrong.

export class ApiError extends Error {
  constructor(status, code, message, field = null, retryAfter = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
    this.retryAfter = retryAfter;
  }
}

function parseJson(text) {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function errorFrom(response, body) {
  const detail = body && body.error ? body.error : {};
  const retry = Number.parseInt(response.headers.get("Retry-After") || "", 10);
  return new ApiError(response.status, detail.code || "http_error", detail.message || response.statusText,
    detail.field || null, Number.isFinite(retry) ? retry : null);
}

async function send(method, path, key, body) {
  const headers = { Authorization: `Bearer ${key}`, Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "unreachable", "the server could not be reached");
  }
  const parsed = parseJson(await response.text());
  if (!response.ok) {
    const error = errorFrom(response, parsed);
    error.key = key; // which key was refused: a late reply to a key since forgotten must not sign out the next
    throw error;
  }
  return parsed;
}

export function createApi(currentKey) {
  return {
    get: (path) => send("GET", path, currentKey()),
    post: (path, body = {}) => send("POST", path, currentKey(), body),
    del: (path) => send("DELETE", path, currentKey()),
  };
}

export function query(path, params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== null && value !== undefined) search.append(name, String(value));
  }
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

export function describeError(error) {
  if (!(error instanceof ApiError)) return `Unexpected problem in the page: ${error.message}`;
  const field = error.field ? ` (field: ${error.field})` : "";
  switch (error.status) {
    case 0: return "The server could not be reached. Is `engram serve` running?";
    case 401: return "The API key was refused (401). Enter a valid key.";
    case 429: return `Too many requests (429): try again in ${error.retryAfter ?? "a few"} s.`;
    case 400:
    case 413:
    case 422: return `Invalid input (${error.status}): ${error.message}${field}`;
    case 404: return `Not found (404): ${error.message}`;
    case 503: return `The store or model is busy (503): ${error.message}. Retry in ${error.retryAfter ?? "a few"} s.`;
    default: return `The server answered ${error.status}: ${error.message}${field}`;
  }
}

// Every call the console makes: the gateway's own /v1 and /internal/v1
// routes, with the key the user typed in the Authorization header. No
// cookie is ever sent (credentials: 'omit'), answers are never cached, and
// nothing goes to any other origin.

export class ApiError extends Error {
  constructor(status, code, message, requestId) {
    super(message);
    this.status = status;
    this.code = code;
    this.requestId = requestId;
  }
}

export function createClient(key) {
  const call = async (method, path, body) => {
    const headers = { Authorization: `Bearer ${key}`, Accept: 'application/json' };
    const init = { method, headers, credentials: 'omit', cache: 'no-store', redirect: 'error' };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let response = await fetch(path, init);
    // A read refused because the tenant's other reads are running
    // (server.max_queries_per_tenant) is tried again after the wait the
    // gateway names, at most twice.
    for (let retry = 0; retry < 2 && method === 'GET' && response.status === 429; retry++) {
      const wait = Math.min(2, Number(response.headers.get('retry-after')) || 1);
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      response = await fetch(path, init);
    }
    const text = await response.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (!response.ok) {
      const err = (json && json.error) || {};
      throw new ApiError(
        response.status,
        err.code || `http_${response.status}`,
        err.message || `${method} ${path} answered ${response.status}`,
        err.request_id || response.headers.get('x-request-id'),
      );
    }
    return json ?? text;
  };
  return {
    get: (path, params) => call('GET', withQuery(path, params)),
    post: (path, body) => call('POST', path, body ?? {}),
    patch: (path, body) => call('PATCH', path, body),
    del: (path) => call('DELETE', path),
    // The Prometheus text of /metrics, with its own bearer token when the
    // operator set one (metrics.bearer_token), else without any.
    text: async (path, token) => {
      const headers = token ? { Authorization: `Bearer ${token}` } : {};
      const response = await fetch(path, { headers, credentials: 'omit', cache: 'no-store', redirect: 'error' });
      return { status: response.status, body: await response.text() };
    },
  };
}

export function withQuery(path, params) {
  if (!params) return path;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') query.set(name, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

export const enc = encodeURIComponent;

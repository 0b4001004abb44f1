// The gateway's status: GET /readyz's checks and a summary of GET /metrics
// (which answers only with its own bearer token when the operator set one).
import { field, h, table } from '../dom.js';

// The families worth a glance; the rest are a click away at /metrics.
const SUMMARY = [
  ['modelgw_requests_total', 'Model requests'],
  ['modelgw_tokens_total', 'Tokens'],
  ['modelgw_cost_micros_total', 'Cost (micro-USD)'],
  ['modelgw_retries_total', 'Retries'],
  ['modelgw_fallbacks_total', 'Fallbacks'],
  ['modelgw_spend_refusals_total', 'Spend refusals'],
  ['modelgw_pii_requests_total', 'Requests with PII'],
  ['modelgw_http_connections_open', 'Open connections'],
  ['modelgw_chat_streams_open', 'Open streams'],
  ['modelgw_usage_queue_depth', 'Usage records queued'],
  ['modelgw_usage_records_written_total', 'Usage records written'],
];

export async function statusView(ctx) {
  const ready = await fetch('/readyz', { credentials: 'omit', cache: 'no-store' });
  const readiness = await ready.json();
  const metricsBox = h('div', { 'data-testid': 'metrics-summary' });
  const token = h('input', { id: 'metrics-token', type: 'password', autocomplete: 'off' });
  const form = h('form', { class: 'controls', 'aria-label': 'Metrics' },
    field('Metrics bearer token (if set)', token), h('button', { type: 'submit' }, 'Read metrics'));
  const loadMetrics = async () => {
    const answer = await ctx.api.text('/metrics', token.value);
    token.value = '';
    if (answer.status !== 200) {
      metricsBox.replaceChildren(h('p', { class: 'muted' },
        answer.status === 401 ? '/metrics needs its bearer token (metrics.bearer_token).'
          : `/metrics answered ${answer.status}.`));
      return;
    }
    const sums = sumFamilies(answer.body);
    const rows = SUMMARY.filter(([name]) => sums.has(name)).map(([name, label]) => ({ name, label, value: sums.get(name) }));
    const threads = threadCpu(answer.body);
    const cpuTotal = threads.reduce((sum, t) => sum + t.seconds, 0);
    metricsBox.replaceChildren(table('Metrics', [
      ['', (r) => r.label],
      ['Metric', (r) => h('code', null, r.name)],
      ['Value', (r) => formatNumber(r.value)],
    ], rows), h('p', { class: 'muted' }, `${sums.size} metric families in all.`),
    // Which part of the gateway spent the process's CPU since start
    // (modelgw_thread_cpu_seconds_total; docs/ARCHITECTURE.md, "Threads").
    table('CPU by thread since start', [
      ['Thread', (t) => h('code', null, t.thread)],
      ['CPU (s)', (t) => t.seconds.toFixed(2)],
      ['Share', (t) => (cpuTotal > 0 ? `${((100 * t.seconds) / cpuTotal).toFixed(1)}%` : '-')],
    ], threads, { 'data-testid': 'thread-cpu' }));
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    loadMetrics();
  });
  await loadMetrics();
  const checks = Object.entries(readiness).filter(([k]) => k !== 'request_id' && k !== 'status');
  return h('div', null,
    h('p', { class: readiness.status === 'ready' || ready.ok ? 'ok' : 'error', 'data-testid': 'readiness' },
      `Readiness: ${readiness.status ?? ready.status} (HTTP ${ready.status})`),
    table('Readiness checks', [
      ['Check', ([k]) => k],
      ['State', ([, v]) => (typeof v === 'object' ? JSON.stringify(v) : String(v))],
    ], checks),
    h('h2', null, 'Metrics'), form, metricsBox);
}

// Prometheus text: each family's samples summed (labels dropped).
export function sumFamilies(text) {
  const sums = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const value = Number(match[3]);
    if (!Number.isFinite(value)) continue;
    sums.set(match[1], (sums.get(match[1]) || 0) + value);
  }
  return sums;
}

// modelgw_thread_cpu_seconds_total's samples, the busiest kind first.
export function threadCpu(text) {
  const threads = [];
  for (const line of text.split('\n')) {
    const match = /^modelgw_thread_cpu_seconds_total\{thread="([^"]*)"\}\s+(\S+)/.exec(line);
    if (match && Number.isFinite(Number(match[2]))) threads.push({ thread: match[1], seconds: Number(match[2]) });
  }
  return threads.sort((a, b) => b.seconds - a.seconds);
}

function formatNumber(n) {
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toFixed(3);
}

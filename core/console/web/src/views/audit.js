// The audit log with its filters (GET /v1/audit, or any tenant's chain
// through /internal/v1/audit), and for an admin key the result of verifying
// the chains (GET /internal/v1/audit/verify).
import { field, formatTime, h, table } from '../dom.js';
import { auditPath } from './scope.js';

export async function auditView(ctx) {
  const action = h('input', { id: 'audit-action', name: 'action', placeholder: 'key.create', autocomplete: 'off' });
  const actor = h('input', { id: 'audit-actor', name: 'actor', placeholder: 'cli', autocomplete: 'off' });
  const since = h('input', { id: 'audit-from', name: 'from', type: 'datetime-local' });
  const list = h('div', { class: 'audit-list' });
  const filters = h('form', { class: 'controls', 'aria-label': 'Audit filters' },
    field('Action', action), field('Actor', actor), field('From (UTC)', since),
    h('button', { type: 'submit' }, 'Filter'));
  const load = async () => {
    const [path, base] = auditPath(ctx);
    const params = { ...base, action: action.value.trim(), actor: actor.value.trim(), limit: 100 };
    // datetime-local gives "2026-11-24T10:00" (or with seconds), read as UTC.
    if (since.value) params.from = since.value.length === 16 ? `${since.value}:00Z` : `${since.value}Z`;
    try {
      const page = await ctx.api.get(path, params);
      list.replaceChildren(table('Audit events, newest first', [
        ['Time', (e) => e.created_at ?? formatTime(e.created)],
        ['Action', (e) => e.action],
        ['Actor', (e) => e.actor],
        ['Target', (e) => e.target ?? ''],
        ['request_id', (e) => (e.request_id ? h('code', null, e.request_id) : '')],
        ['Details', (e) => (e.details ? JSON.stringify(e.details) : '')],
        ['seq', (e) => String(e.seq ?? '')],
      ], page.data, { 'data-testid': 'audit-table' }));
    } catch (err) {
      list.replaceChildren(h('p', { class: 'error', role: 'alert' }, ctx.describe(err)));
    }
  };
  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    load();
  });
  const parts = [filters];
  if (ctx.role === 'admin') parts.push(verifyPanel(ctx));
  parts.push(list);
  await load();
  return h('div', null, parts);
}

function verifyPanel(ctx) {
  const result = h('div', { 'data-testid': 'audit-verification', role: 'status' });
  const button = h('button', { type: 'button', id: 'audit-verify' }, 'Verify the chains');
  button.addEventListener('click', async () => {
    result.textContent = 'Verifying…';
    try {
      const answer = await ctx.api.get('/internal/v1/audit/verify', { tenant: ctx.tenant });
      result.replaceChildren(
        h('p', { class: answer.intact ? 'ok' : 'error', 'data-intact': String(answer.intact) },
          answer.intact ? 'Every chain is intact.' : 'A chain has been tampered with.',
          answer.macs_checked ? ' MACs were checked with the audit key.' : ' No audit key: MACs not checked.'),
        h('ul', null, answer.chains.map((c) => h('li', null,
          `${c.tenant ?? 'gateway'}: ${c.events} events, `,
          c.intact ? 'intact' : `${c.fault.kind} at seq ${c.fault.seq}: ${c.fault.detail}`))));
    } catch (err) {
      result.textContent = ctx.describe(err);
    }
  });
  return h('section', { class: 'card' }, h('h2', null, 'Integrity'), button, result);
}

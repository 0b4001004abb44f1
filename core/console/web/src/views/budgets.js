// Budgets with what is spent, reserved and left as bars, and when each
// window resets (GET /v1/budgets, or the tenant's through /internal/v1).
import { stackBar } from '../charts.js';
import { h, table, usd } from '../dom.js';
import { budgetsPath } from './scope.js';

export async function budgetsView(ctx) {
  const report = await ctx.api.get(budgetsPath(ctx));
  const scopeOf = (b) =>
    b.scope === 'feature' ? `feature ${b.feature}` : b.scope === 'key' ? `key ${b.key_id}` : b.scope;
  const items = report.data.map((b) =>
    h('li', { class: 'budget', 'data-budget-id': b.id },
      h('h2', null, `${b.name ?? scopeOf(b)} · ${b.window}`),
      stackBar(`Budget ${b.id}`, [
        { name: 'spent', kind: 'spent', value: b.spent_micros, text: usd(b.spent) },
        { name: 'reserved', kind: 'reserved', value: b.reserved_micros, text: usd(b.reserved) },
        { name: 'remaining', kind: 'remaining', value: b.remaining_micros, text: usd(b.remaining) },
      ], b.limit_micros),
      h('p', null, `${usd(b.spent)} spent, ${usd(b.reserved)} reserved, ${usd(b.remaining)} left of ${usd(b.limit)}; `,
        `resets ${b.resets_at}`)));
  const legend = h('p', { class: 'legend', 'aria-hidden': 'true' },
    ['spent', 'reserved', 'remaining'].map((k) => h('span', { class: 'key' }, h('span', { class: `swatch ${k}` }), k)));
  return h('div', null,
    report.data.length ? [legend, h('ul', { class: 'budgets' }, items)] : h('p', null, 'No budgets apply to this tenant.'),
    table('Budgets', [
      ['id', (b) => String(b.id)],
      ['Scope', scopeOf],
      ['Window', (b) => b.window],
      ['Limit', (b) => usd(b.limit)],
      ['Spent', (b) => usd(b.spent)],
      ['Reserved', (b) => usd(b.reserved)],
      ['Remaining', (b) => usd(b.remaining)],
      ['Resets at', (b) => b.resets_at],
    ], report.data, { 'data-testid': 'budgets-table' }));
}

// Usage over time as charts (cost and tokens by hour or day, cost by model,
// feature or key), from GET /v1/usage's group_by sums, and the newest
// records with their request_ids.
import { barChart } from '../charts.js';
import { field, h, table, usd } from '../dom.js';
import { usagePath } from './scope.js';

const PERIODS = {
  hours: { label: 'Last 48 hours, by hour', group: 'hour', seconds: 48 * 3600 },
  days: { label: 'Last 30 days, by day', group: 'day', seconds: 30 * 86400 },
};
const BREAKDOWNS = { model: 'Model', feature: 'Feature', key: 'API key' };

export async function usageView(ctx) {
  const period = h('select', { id: 'usage-period' },
    Object.entries(PERIODS).map(([id, p]) => h('option', { value: id }, p.label)));
  const breakdown = h('select', { id: 'usage-breakdown' },
    Object.entries(BREAKDOWNS).map(([id, label]) => h('option', { value: id }, label)));
  const content = h('div', { class: 'usage-content' });
  const root = h('div', null, h('div', { class: 'controls' }, field('Period', period), field('Cost by', breakdown)),
    content);
  const load = async () => {
    content.setAttribute('aria-busy', 'true');
    try {
      content.replaceChildren(await usageContent(ctx, PERIODS[period.value], breakdown.value));
    } catch (err) {
      content.replaceChildren(h('p', { class: 'error', role: 'alert' }, ctx.describe(err)));
    }
    content.setAttribute('aria-busy', 'false');
  };
  period.addEventListener('change', load);
  breakdown.addEventListener('change', load);
  await load();
  return root;
}

async function usageContent(ctx, period, by) {
  const [path, base] = usagePath(ctx);
  const from = Math.floor(Date.now() / 1000) - period.seconds;
  // One after another: the gateway runs at most server.max_queries_per_tenant
  // (2) usage reads of a tenant at once.
  const timeline = await ctx.api.get(path, { ...base, from, group_by: period.group });
  const groups = await ctx.api.get(path, { ...base, from, group_by: by });
  const records = await ctx.api.get(path, { ...base, from, limit: 25 });
  const totals = timeline.totals;
  const money = (g) => ({ label: g.key ?? '(none)', value: g.cost_micros / 1e6, text: g.cost });
  const tokens = (g) => ({ label: g.key ?? '(none)', value: g.total_tokens, text: String(g.total_tokens) });
  return h(
    'div',
    null,
    h('dl', { class: 'totals', 'data-testid': 'usage-totals' },
      h('dt', null, 'Requests'), h('dd', { 'data-field': 'requests' }, String(totals.requests)),
      h('dt', null, 'Tokens'), h('dd', { 'data-field': 'total_tokens' }, String(totals.total_tokens)),
      h('dt', null, 'Cost'), h('dd', { 'data-field': 'cost' }, usd(totals.cost))),
    h('div', { class: 'charts' },
      barChart(`Cost by ${period.group} (USD)`, timeline.data.map(money), { testId: 'chart-cost-time' }),
      barChart(`Tokens by ${period.group}`, timeline.data.map(tokens), { testId: 'chart-tokens-time' }),
      barChart(`Cost by ${BREAKDOWNS[by].toLowerCase()} (USD)`, groups.data.map(money),
        { testId: 'chart-cost-breakdown' })),
    table(
      'Newest records',
      [
        ['Time', (r) => r.created_at],
        ['request_id', (r) => h('code', null, r.request_id)],
        ['Model', (r) => r.model ?? ''],
        ['Feature', (r) => r.feature ?? ''],
        ['Key', (r) => (r.key_id === null ? 'JWT' : String(r.key_id))],
        ['Status', (r) => String(r.status)],
        ['Tokens', (r) => String(r.total_tokens)],
        ['Cost', (r) => usd(r.cost)],
      ],
      records.data,
      { 'data-testid': 'usage-records' },
    ),
  );
}

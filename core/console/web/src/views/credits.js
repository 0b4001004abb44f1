// The tenant's credit account and, for an admin key, a top-up
// (POST /internal/v1/tenants/{t}/credits, which the audit log records).
import { stackBar } from '../charts.js';
import { field, h, usd } from '../dom.js';
import { budgetsPath, tenantPath } from './scope.js';

export async function creditsView(ctx) {
  let account = null;
  if (ctx.role === 'admin') {
    try {
      account = await ctx.api.get(tenantPath(ctx, 'credits'));
    } catch (err) {
      if (err.status !== 404) throw err;  // 404: no account yet; a top-up opens one
    }
  } else {
    account = (await ctx.api.get(budgetsPath(ctx))).credit;
  }
  const parts = [
    account
      ? h('section', { 'data-testid': 'credit-account' },
          stackBar('Credit account', [
            { name: 'spent', kind: 'spent', value: account.spent_micros, text: usd(account.spent) },
            { name: 'reserved', kind: 'reserved', value: account.reserved_micros, text: usd(account.reserved) },
            { name: 'available', kind: 'remaining', value: account.available_micros, text: usd(account.available) },
          ], account.topped_up_micros),
          h('dl', { class: 'totals' },
            h('dt', null, 'Balance'), h('dd', { 'data-field': 'balance' }, usd(account.balance)),
            h('dt', null, 'Available'), h('dd', { 'data-field': 'available' }, usd(account.available)),
            h('dt', null, 'Reserved'), h('dd', null, usd(account.reserved)),
            h('dt', null, 'Topped up'), h('dd', { 'data-field': 'topped_up' }, usd(account.topped_up)),
            h('dt', null, 'Spent'), h('dd', null, usd(account.spent))))
      : h('p', null, 'This tenant has no credit account.'),
  ];
  if (ctx.role === 'admin') parts.push(topUpForm(ctx));
  return h('div', null, parts);
}

function topUpForm(ctx) {
  const amount = h('input', { id: 'top-up-amount', name: 'amount', inputmode: 'decimal', required: true,
    pattern: '[0-9]{1,9}(\\.[0-9]{1,6})?', placeholder: '100.00', autocomplete: 'off' });
  const message = h('p', { role: 'status', class: 'muted', id: 'top-up-result' });
  const form = h('form', { class: 'card', 'aria-label': 'Top up' },
    h('h2', null, 'Top up'),
    field('Amount (USD)', amount),
    h('button', { type: 'submit' }, 'Add credit'),
    message);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!form.reportValidity()) return;
    try {
      const account = await ctx.api.post(tenantPath(ctx, 'credits'), { amount: amount.value });
      ctx.setStatus(`Added $${amount.value}: the balance is now ${usd(account.balance)}.`);
      ctx.refresh();
    } catch (err) {
      message.textContent = ctx.describe(err);
    }
  });
  return form;
}

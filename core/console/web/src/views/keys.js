// The tenant's API keys (admin keys only): create one with its scopes (its
// secret is shown once, here, and kept nowhere), and revoke one.
import { field, formatTime, h, table } from '../dom.js';
import { enc } from '../api.js';
import { tenantPath } from './scope.js';

const SCOPES = ['chat', 'prompts:read', 'usage:read', 'budgets:read', 'audit:read', 'admin'];

export async function keysView(ctx) {
  const keys = await ctx.api.get(tenantPath(ctx, 'keys'));
  const created = h('div', { 'data-testid': 'new-key', 'aria-live': 'polite' });
  const boxes = SCOPES.map((s) =>
    h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'scope', value: s, checked: s === 'chat' }), s));
  const form = h('form', { class: 'card', 'aria-label': 'Create a key' },
    h('h2', null, 'Create a key'),
    h('fieldset', null, h('legend', null, 'Scopes'), boxes),
    h('button', { type: 'submit', id: 'create-key' }, 'Create key'),
    created);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const scopes = [...form.querySelectorAll('input[name=scope]:checked')].map((i) => i.value);
    if (scopes.length === 0) {
      created.textContent = 'Choose at least one scope.';
      return;
    }
    try {
      const key = await ctx.api.post(tenantPath(ctx, 'keys'), { scopes });
      const secret = h('input', { id: 'new-key-secret', readonly: true, value: key.key, size: 60,
        'aria-describedby': 'new-key-note' });
      created.replaceChildren(
        h('p', { id: 'new-key-note' }, `Key ${key.id} (${key.scopes.join(' ')}). Copy it now: it is not shown again.`),
        field('New key', secret));
      secret.select();
      const list = await ctx.api.get(tenantPath(ctx, 'keys'));
      listBox.replaceChildren(keyTable(ctx, list.data, listBox));
    } catch (err) {
      created.textContent = ctx.describe(err);
    }
  });
  const listBox = h('div', null);
  listBox.append(keyTable(ctx, keys.data, listBox));
  return h('div', null, form, listBox);
}

function keyTable(ctx, keys, box) {
  return table('Keys', [
    ['id', (k) => String(k.id)],
    ['Prefix', (k) => h('code', null, k.prefix)],
    ['Scopes', (k) => k.scopes.join(' ')],
    ['Created', (k) => formatTime(k.created_at)],
    ['Revoked', (k) => formatTime(k.revoked_at)],
    ['', (k) => (k.revoked_at ? '' : revokeButton(ctx, k, box))],
  ], keys, { 'data-testid': 'keys-table' });
}

function revokeButton(ctx, key, box) {
  const button = h('button', { type: 'button', class: 'danger', 'data-revoke': key.id,
    'aria-label': `Revoke key ${key.id} (${key.prefix})` }, 'Revoke');
  button.addEventListener('click', async () => {
    if (!window.confirm(`Revoke key ${key.id} (${key.prefix})? Requests with it will be refused.`)) return;
    try {
      await ctx.api.post(`/internal/v1/keys/${enc(key.id)}/revoke`);
      ctx.setStatus(`Key ${key.id} revoked.`);
      const list = await ctx.api.get(tenantPath(ctx, 'keys'));
      box.replaceChildren(keyTable(ctx, list.data, box));
    } catch (err) {
      ctx.setStatus(ctx.describe(err), true);
    }
  });
  return button;
}

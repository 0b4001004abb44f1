// Named prompts: an admin key lists the tenant's prompts, shows two versions
// of one side by side and activates a version; a tenant key with
// prompts:read looks one up by name (GET /v1/prompts/{name}).
import { enc } from '../api.js';
import { field, formatTime, h, table } from '../dom.js';
import { tenantPath } from './scope.js';

export async function promptsView(ctx) {
  if (ctx.role !== 'admin') return lookup(ctx);
  const list = await ctx.api.get(tenantPath(ctx, 'prompts'));
  const detail = h('div', { 'data-testid': 'prompt-detail' });
  const open = async (name) => {
    try {
      detail.replaceChildren(await versions(ctx, name));
    } catch (err) {
      detail.replaceChildren(h('p', { class: 'error', role: 'alert' }, ctx.describe(err)));
    }
  };
  const rows = list.data;
  const tableEl = table('Prompts', [
    ['Name', (p) => h('button', { type: 'button', class: 'link', onclick: () => open(p.name) }, p.name)],
    ['Active version', (p) => String(p.version)],
    ['Versions', (p) => String(p.versions)],
    ['Model', (p) => p.model ?? ''],
  ], rows, { 'data-testid': 'prompts-table' });
  if (rows.length) await open(rows[0].name);
  return h('div', null, tableEl, detail);
}

async function versions(ctx, name) {
  const all = (await ctx.api.get(tenantPath(ctx, `prompts/${enc(name)}`))).data;
  const options = () => all.map((v) => h('option', { value: v.version }, `v${v.version}${v.active ? ' (active)' : ''}`));
  const left = h('select', { id: 'prompt-left' }, options());
  const right = h('select', { id: 'prompt-right' }, options());
  const active = all.find((v) => v.active) || all[all.length - 1];
  left.value = String(active.version);
  right.value = String(all[all.length - 1].version);
  const sides = h('div', { class: 'side-by-side' });
  const draw = () => sides.replaceChildren(side(ctx, name, all, left.value), side(ctx, name, all, right.value));
  left.addEventListener('change', draw);
  right.addEventListener('change', draw);
  draw();
  return h('section', null, h('h2', null, `Prompt ${name}`),
    h('div', { class: 'controls' }, field('Left', left), field('Right', right)), sides);
}

function side(ctx, name, all, version) {
  const v = all.find((x) => String(x.version) === String(version));
  const activate = h('button', { type: 'button', 'data-activate': v.version }, `Activate v${v.version}`);
  activate.addEventListener('click', async () => {
    try {
      await ctx.api.post(tenantPath(ctx, `prompts/${enc(name)}/versions/${enc(v.version)}/activate`));
      ctx.setStatus(`Version ${v.version} of ${name} is now active.`);
      ctx.refresh();
    } catch (err) {
      ctx.setStatus(ctx.describe(err), true);
    }
  });
  return h('article', { class: 'card', 'data-version': v.version },
    h('h3', null, `v${v.version}`, v.active ? ' · active' : ''),
    h('p', { class: 'muted' }, `${v.model ?? 'any model'} · ${formatTime(v.created_at)}`),
    h('pre', null, JSON.stringify(v.template, null, 2)),
    v.parameters && Object.keys(v.parameters).length ? h('pre', null, JSON.stringify(v.parameters, null, 2)) : null,
    v.active ? null : activate);
}

function lookup(ctx) {
  const name = h('input', { id: 'prompt-name', name: 'name', required: true, autocomplete: 'off' });
  const out = h('div', { 'data-testid': 'prompt-detail' });
  const form = h('form', { class: 'controls', 'aria-label': 'Look up a prompt' }, field('Prompt name', name),
    h('button', { type: 'submit' }, 'Show'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const p = await ctx.api.get(`/v1/prompts/${enc(name.value.trim())}`);
      out.replaceChildren(h('h2', null, `${p.name} v${p.version}`), h('pre', null, JSON.stringify(p.template, null, 2)));
    } catch (err) {
      out.replaceChildren(h('p', { class: 'error', role: 'alert' }, ctx.describe(err)));
    }
  });
  return h('div', null, h('p', null, 'A tenant key sees one prompt at a time, by name.'), form, out);
}

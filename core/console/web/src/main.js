// The console's shell: sign-in, the tenant picker (admin keys), the views'
// navigation (one hash per view, so the back button works) and the status
// line. The key lives in this module's memory only: never in storage, a
// cookie or the URL.
import { ApiError, createClient } from './api.js';
import { h } from './dom.js';
import { auditView } from './views/audit.js';
import { budgetsView } from './views/budgets.js';
import { creditsView } from './views/credits.js';
import { keysView } from './views/keys.js';
import { promptsView } from './views/prompts.js';
import { statusView } from './views/status.js';
import { usageView } from './views/usage.js';

const VIEWS = [
  { id: 'usage', title: 'Usage', render: usageView },
  { id: 'budgets', title: 'Budgets', render: budgetsView },
  { id: 'credits', title: 'Credits', render: creditsView },
  { id: 'audit', title: 'Audit log', render: auditView },
  { id: 'keys', title: 'Keys', render: keysView, admin: true },
  { id: 'prompts', title: 'Prompts', render: promptsView },
  { id: 'status', title: 'Status', render: statusView },
];

const $ = (id) => document.getElementById(id);
let session = null; // {api, role: 'admin' | 'tenant', tenant}
let signInForm = null;
let renderSeq = 0;

function setStatus(text, isError) {
  const el = $('status');
  el.textContent = text || '';
  el.classList.toggle('error', Boolean(isError));
}

async function signIn(event) {
  event.preventDefault();
  const input = $('key');
  const key = input.value.trim();
  input.value = '';
  $('sign-in-error').textContent = '';
  if (!key) return;
  const api = createClient(key);
  let role = 'tenant';
  let tenants = [];
  try {
    // An admin key may list tenants; a tenant key gets 403 here.
    const list = await api.get('/internal/v1/tenants');
    role = 'admin';
    tenants = list.data.map((t) => t.name);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 403) {
      $('sign-in-error').textContent =
        err instanceof ApiError && err.status === 401 ? 'That key was not accepted.' : describe(err);
      return;
    }
  }
  session = { api, role, tenant: tenants[0] || null, tenants };
  signInForm = $('sign-in');
  signInForm.remove();
  $('who').textContent = role === 'admin' ? 'Signed in with an admin key' : "Signed in with a tenant's key";
  const picker = $('tenant-picker');
  const select = $('tenant');
  select.replaceChildren(...tenants.map((t) => h('option', { value: t }, t)));
  picker.hidden = role !== 'admin';
  $('sign-out').hidden = false;
  buildNav();
  if (!location.hash) location.hash = '#usage';
  else show();
}

function signOut() {
  session = null;
  renderSeq++;
  $('nav').hidden = true;
  $('nav').replaceChildren();
  $('tenant-picker').hidden = true;
  $('sign-out').hidden = true;
  $('who').textContent = '';
  $('view').replaceChildren(signInForm);
  setStatus('Signed out: the key is forgotten.');
  history.replaceState(null, '', location.pathname);
  $('key').focus();
}

function buildNav() {
  const nav = $('nav');
  const list = h('ul', null);
  for (const view of VIEWS) {
    if (view.admin && session.role !== 'admin') continue;
    list.append(h('li', null, h('a', { href: `#${view.id}`, id: `nav-${view.id}` }, view.title)));
  }
  nav.replaceChildren(list);
  nav.hidden = false;
}

async function show() {
  if (!session) return;
  const id = location.hash.slice(1) || 'usage';
  const view = VIEWS.find((v) => v.id === id && (!v.admin || session.role === 'admin')) || VIEWS[0];
  for (const link of $('nav').querySelectorAll('a')) {
    if (link.id === `nav-${view.id}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const seq = ++renderSeq;
  const main = $('view');
  const heading = h('h1', null, view.title, session.role === 'admin' && session.tenant ? ` · ${session.tenant}` : '');
  const body = h('div', { class: 'view-body', 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Loading…'));
  main.replaceChildren(heading, body);
  document.title = `${view.title} · modelgw console`;
  setStatus('');
  const ctx = {
    api: session.api,
    role: session.role,
    tenant: session.tenant,
    setStatus,
    describe,
    refresh: () => show(),
    current: () => seq === renderSeq,
  };
  try {
    const content = await view.render(ctx);
    if (seq !== renderSeq) return;
    body.replaceChildren(content);
  } catch (err) {
    if (seq !== renderSeq) return;
    body.replaceChildren(h('p', { class: 'error', role: 'alert' }, describe(err)));
  }
  body.setAttribute('aria-busy', 'false');
  body.dataset.ready = 'true';
}

// What went wrong, for a person: the gateway's message and its request_id.
function describe(err) {
  if (err instanceof ApiError) {
    const scope = err.status === 403 ? ' (this key lacks the scope this view needs)' : '';
    return `${err.message}${scope} [${err.code}${err.requestId ? `, ${err.requestId}` : ''}]`;
  }
  return `The gateway could not be reached: ${err && err.message ? err.message : err}`;
}

document.addEventListener('DOMContentLoaded', () => {
  $('sign-in').addEventListener('submit', signIn);
  $('sign-out').addEventListener('click', signOut);
  $('tenant').addEventListener('change', (e) => {
    session.tenant = e.target.value;
    show();
  });
  window.addEventListener('hashchange', () => {
    show().then(() => $('view').focus());
  });
  document.body.dataset.ready = 'true';
});

// The web console in a real browser: Debian's chromium, headless, driven by
// playwright-core against the real gateway that tests/integration/
// console_test.cpp started and seeded (usage, budgets, a credit account, two
// prompt versions, audit events). Signs in with an admin key and with a
// tenant's key, reads every view, creates and revokes a key, tops up a
// credit, checks a chart's numbers against GET /internal/v1/usage, checks
// keyboard navigation and labels, and checks every API call the page made
// against docs/openapi.yaml. Screenshots of each view go to MODELGW_ARTIFACTS.
//
// Environment: MODELGW_ROOT_URL, MODELGW_ADMIN_KEY, MODELGW_TENANT_KEY
// (usage:read budgets:read audit:read prompts:read of tenant acme),
// MODELGW_TENANT, MODELGW_ARTIFACTS, MODELGW_CHROMIUM.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';
import { findOperation, validateResponse } from '../openapi/openapi_doc.mjs';

const root = process.env.MODELGW_ROOT_URL;
const adminKey = process.env.MODELGW_ADMIN_KEY;
const tenantKey = process.env.MODELGW_TENANT_KEY;
const tenant = process.env.MODELGW_TENANT ?? 'acme';
const artifacts = process.env.MODELGW_ARTIFACTS;
const executablePath = process.env.MODELGW_CHROMIUM ?? '/usr/bin/chromium';
assert.ok(root && adminKey && tenantKey && artifacts, 'MODELGW_ROOT_URL, keys and MODELGW_ARTIFACTS must be set');
mkdirSync(artifacts, { recursive: true });
const origin = new URL(root).origin;

let browser;
const foreignRequests = [];
const pageErrors = [];
const apiCalls = []; // {method, path, status, contentType, body}

before(async () => {
  browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
});
after(async () => {
  await browser?.close();
});

async function openPage() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: false });
  // Nothing outside the gateway's origin: a request elsewhere is recorded and refused.
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin !== origin) {
      foreignRequests.push(url.href);
      return route.abort();
    }
    return route.continue();
  });
  const page = await context.newPage();
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/status of 40[0-9]/.test(msg.text())) pageErrors.push(msg.text());
  });
  page.on('response', async (response) => {
    const url = new URL(response.url());
    if (!url.pathname.startsWith('/v1/') && !url.pathname.startsWith('/internal/v1/')) return;
    // null: the page went on (navigated, closed) before the body arrived,
    // so only the operation and status are checked.
    let body = null;
    try {
      body = await response.text();
    } catch {
      body = null;
    }
    apiCalls.push({ method: response.request().method(), path: url.pathname, query: url.search,
      status: response.status(), contentType: response.headers()['content-type'] ?? '', body });
  });
  page.on('dialog', (dialog) => dialog.accept());
  return page;
}

async function signIn(page, key) {
  const started = Date.now();
  await page.goto(`${root}/console`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForSelector('#key');
  const interactive = Date.now() - started;
  await page.fill('#key', key);
  await page.press('#key', 'Enter');
  await page.waitForSelector('#nav a');
  await waitForView(page);
  const firstView = Date.now() - started;
  return { interactive, firstView };
}

async function waitForView(page) {
  await page.waitForSelector('.view-body[data-ready="true"]', { timeout: 10_000 });
}

// The view `id` was rendered. The hash changes before the page's hashchange
// handler runs, and until then the old view's body is still there, ready:
// the link marked current is set in the same step that replaces the body.
async function waitForShown(page, id) {
  await page.waitForFunction(
    (h) => location.hash === `#${h}` && document.getElementById(`nav-${h}`)?.getAttribute('aria-current') === 'page',
    id,
  );
  await waitForView(page);
}

async function show(page, id) {
  await page.click(`#nav-${id}`);
  await waitForShown(page, id);
}

// After a usage control changed: the charts were drawn again for it.
async function waitForChart(page, testId, words) {
  await page.waitForFunction(
    ([id, w]) => {
      const content = document.querySelector('.usage-content');
      const caption = document.querySelector(`[data-testid="${id}"] figcaption`);
      return content?.getAttribute('aria-busy') === 'false' && caption?.textContent.includes(w);
    },
    [testId, words],
  );
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

async function api(method, pathname, key, body) {
  const response = await fetch(`${root}${pathname}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null };
}

// Every form control of the page has an accessible name.
async function unlabelled(page) {
  return page.$$eval('input:not([type=hidden]), select, textarea, button', (els) =>
    els
      .filter((el) => !el.closest('[hidden]'))
      .filter((el) => {
        const name = el.getAttribute('aria-label') || (el.labels && el.labels.length > 0) ||
          (el.tagName === 'BUTTON' && el.textContent.trim()) || el.getAttribute('aria-labelledby');
        return !name;
      })
      .map((el) => el.outerHTML.slice(0, 120)));
}

test('the console is interactive quickly and an admin key reads every view', async () => {
  const page = await openPage();
  const timing = await signIn(page, adminKey);
  console.log(`console timing: sign-in form interactive ${timing.interactive} ms; first view with data ${timing.firstView} ms`);
  assert.ok(timing.interactive < 10_000, `the sign-in form took ${timing.interactive} ms`);
  // The key is in no storage the browser keeps, and the page sets no cookie.
  const stored = await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]);
  assert.deepEqual(stored, [0, 0, '']);
  assert.ok(!page.url().includes(adminKey));

  await page.selectOption('#tenant', tenant);
  await waitForView(page);

  // Usage: the cost-by-day chart carries the same numbers as the API.
  await page.selectOption('#usage-period', 'days');
  await waitForChart(page, 'chart-cost-time', 'by day');
  const from = Math.floor(Date.now() / 1000) - 30 * 86400;
  const byDay = await api('GET', `/internal/v1/usage?tenant=${tenant}&group_by=day&from=${from}`, adminKey);
  assert.equal(byDay.status, 200);
  const bars = await page.$$eval('[data-testid="chart-cost-time"] rect.bar', (rs) =>
    rs.map((r) => [r.getAttribute('data-label'), r.getAttribute('data-value')]));
  assert.deepEqual(bars, byDay.json.data.map((g) => [g.key, g.cost]));
  assert.ok(byDay.json.totals.requests >= 3, 'the seeded usage is there');
  const totals = await page.textContent('[data-testid="usage-totals"] [data-field="requests"]');
  assert.equal(totals, String(byDay.json.totals.requests));
  await page.selectOption('#usage-breakdown', 'feature');
  await waitForChart(page, 'chart-cost-breakdown', 'by feature');
  const byFeature = await api('GET', `/internal/v1/usage?tenant=${tenant}&group_by=feature&from=${from}`, adminKey);
  const featureBars = await page.$$eval('[data-testid="chart-cost-breakdown"] rect.bar', (rs) =>
    rs.map((r) => [r.getAttribute('data-label'), r.getAttribute('data-value')]));
  assert.deepEqual(featureBars, byFeature.json.data.map((g) => [g.key ?? '(none)', g.cost]));
  const records = await page.$$eval('[data-testid="usage-records"] tbody tr', (rows) => rows.length);
  assert.ok(records >= 3);
  const ids = await page.$$eval('[data-testid="usage-records"] tbody code', (cs) => cs.map((c) => c.textContent));
  assert.ok(ids.every((id) => /^req_[0-9A-Za-z]{24}$/.test(id)), ids.join(','));
  assert.deepEqual(await unlabelled(page), []);
  await shot(page, 'usage');

  // Budgets: one bar per budget, with its reset time.
  await show(page, 'budgets');
  const budgets = await api('GET', `/internal/v1/tenants/${tenant}/budgets`, adminKey);
  const shown = await page.$$eval('li.budget', (ls) => ls.map((l) => l.getAttribute('data-budget-id')));
  assert.deepEqual(shown, budgets.json.data.map((b) => String(b.id)));
  assert.ok(shown.length >= 2);
  assert.match(await page.textContent('li.budget'), /resets \d{4}-\d\d-\d\dT/);
  await shot(page, 'budgets');

  // Credits: a top-up through the form raises the balance by exactly that.
  await show(page, 'credits');
  const before = (await api('GET', `/internal/v1/tenants/${tenant}/credits`, adminKey)).json;
  await page.fill('#top-up-amount', '25.50');
  await page.click('form[aria-label="Top up"] button[type=submit]');
  await page.waitForFunction(
    (b) => document.querySelector('[data-field="topped_up"]')?.textContent !== b,
    `$${before.topped_up}`,
  );
  await waitForView(page);
  const afterTopUp = (await api('GET', `/internal/v1/tenants/${tenant}/credits`, adminKey)).json;
  assert.equal(afterTopUp.topped_up_micros - before.topped_up_micros, 25_500_000);
  assert.equal(await page.textContent('[data-field="topped_up"]'), `$${afterTopUp.topped_up}`);
  await shot(page, 'credits');

  // Keys: create one (shown once), use it, revoke it.
  await show(page, 'keys');
  await page.check('input[name=scope][value="usage:read"]');
  await page.click('#create-key');
  await page.waitForSelector('#new-key-secret');
  const minted = await page.inputValue('#new-key-secret');
  assert.match(minted, /^\S{20,}$/);
  const models = await api('GET', '/v1/models', minted);
  assert.equal(models.status, 200, 'the new key works');
  const keyRows = (await api('GET', `/internal/v1/tenants/${tenant}/keys`, adminKey)).json.data;
  const newest = keyRows.reduce((a, b) => (a.id > b.id ? a : b));
  assert.deepEqual(newest.scopes.sort(), ['chat', 'usage:read']);
  await shot(page, 'keys');
  await page.click(`button[data-revoke="${newest.id}"]`);
  await page.waitForSelector(`button[data-revoke="${newest.id}"]`, { state: 'detached' });
  const revoked = (await api('GET', `/internal/v1/tenants/${tenant}/keys`, adminKey)).json.data.find(
    (k) => k.id === newest.id);
  assert.notEqual(revoked.revoked_at, null);

  // Prompts: two versions side by side; activating one makes it the active one.
  await show(page, 'prompts');
  await page.waitForSelector('.side-by-side article[data-version]');
  const versions = await page.$$eval('.side-by-side article', (as) => as.map((a) => a.getAttribute('data-version')));
  assert.deepEqual(versions, ['1', '2']);
  await shot(page, 'prompts');
  await page.click('button[data-activate="2"]');
  await page.waitForFunction(() => document.querySelector('#prompt-left')?.value === '2');
  const prompt = await api('GET', `/internal/v1/tenants/${tenant}/prompts/greet`, adminKey);
  assert.equal(prompt.json.data.find((v) => v.active).version, 2);

  // Audit: the console's own changes are there, and the chains verify.
  await show(page, 'audit');
  await page.waitForSelector('[data-testid="audit-table"]');
  const actions = await page.$$eval('[data-testid="audit-table"] tbody tr td:nth-child(2)', (cs) =>
    cs.map((c) => c.textContent));
  for (const action of ['credits.top_up', 'key.create', 'key.revoke', 'prompt.activate']) {
    assert.ok(actions.includes(action), `${action} missing from ${actions.join(',')}`);
  }
  await page.fill('#audit-action', 'key.revoke');
  await page.press('#audit-action', 'Enter');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('[data-testid="audit-table"] tbody tr td:nth-child(2)')].every(
      (c) => c.textContent === 'key.revoke'));
  await page.click('#audit-verify');
  await page.waitForSelector('[data-testid="audit-verification"] [data-intact]');
  assert.equal(await page.getAttribute('[data-testid="audit-verification"] [data-intact]', 'data-intact'), 'true');
  await shot(page, 'audit');

  // Status: readiness and a summary of /metrics.
  await show(page, 'status');
  assert.match(await page.textContent('[data-testid="readiness"]'), /HTTP 200/);
  await page.waitForSelector('[data-testid="metrics-summary"] table');
  assert.match(await page.textContent('[data-testid="metrics-summary"]'), /modelgw_requests_total/);
  // Where the process's CPU went, by kind of thread (the event loops served every request above).
  assert.match(await page.textContent('[data-testid="thread-cpu"]'), /mgw-loop/);
  assert.deepEqual(await unlabelled(page), []);
  await shot(page, 'status');

  // Signing out forgets the key: the next view needs it again.
  await page.click('#sign-out');
  await page.waitForSelector('#key');
  await page.context().close();
});

test('the keyboard alone reaches every view', async () => {
  const page = await openPage();
  await page.goto(`${root}/console/`);
  await page.waitForSelector('body[data-ready="true"]');
  // Tab order: the skip link, then the key field.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'key');
  await page.keyboard.type(adminKey);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#nav a');
  await waitForView(page);
  // Tab forward until the Budgets link has focus, then follow it with Enter.
  let reached = false;
  for (let i = 0; i < 30 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement.id === 'nav-budgets');
  }
  assert.ok(reached, 'Tab never reached the Budgets link');
  await page.keyboard.press('Enter');
  await waitForShown(page, 'budgets');
  // Focus moves to the view once it is drawn, so the next Tab goes into it.
  await page.waitForFunction(() => document.activeElement?.id === 'view', null, { timeout: 10_000 });
  const focusVisible = await page.evaluate(() => {
    const link = document.getElementById('nav-usage');
    link.focus();
    return getComputedStyle(link).outlineStyle;
  });
  assert.notEqual(focusVisible, 'none', 'a focused link shows its focus');
  await page.context().close();
});

test("a tenant's key sees its own tenant and nothing an admin key does", async () => {
  const page = await openPage();
  await signIn(page, tenantKey);
  assert.equal(await page.isVisible('#tenant-picker'), false);
  assert.equal(await page.$('#nav-keys'), null, 'no keys view without admin');
  const own = await api('GET', '/v1/usage?group_by=day', tenantKey);
  await page.selectOption('#usage-period', 'days');
  await waitForChart(page, 'chart-cost-time', 'by day');
  const bars = await page.$$eval('[data-testid="chart-cost-time"] rect.bar', (rs) =>
    rs.map((r) => [r.getAttribute('data-label'), r.getAttribute('data-value')]));
  assert.deepEqual(bars, own.json.data.map((g) => [g.key, g.cost]));
  assert.ok(bars.length >= 1);
  await shot(page, 'tenant-usage');
  await show(page, 'budgets');
  await show(page, 'credits');
  await page.waitForSelector('[data-testid="credit-account"]');
  assert.equal(await page.$('#top-up-amount'), null, 'no top-up without admin');
  await show(page, 'audit');
  await page.waitForSelector('[data-testid="audit-table"]');
  assert.equal(await page.$('#audit-verify'), null);
  await show(page, 'prompts');
  await page.fill('#prompt-name', 'greet');
  await page.press('#prompt-name', 'Enter');
  await page.waitForSelector('[data-testid="prompt-detail"] pre');
  await shot(page, 'tenant-prompts');
  // Going to the keys view by its address shows the first view instead.
  await page.goto(`${root}/console/#keys`);
  assert.equal(await page.$('#create-key'), null);
  await page.context().close();
});

test('nothing left the origin, no script error, and every API call matches the OpenAPI document', () => {
  assert.deepEqual(foreignRequests, []);
  assert.deepEqual(pageErrors, []);
  assert.ok(apiCalls.length >= 20, `only ${apiCalls.length} API calls were seen`);
  const problems = [];
  const operations = new Set();
  for (const call of apiCalls) {
    const op = findOperation(call.method, call.path);
    if (!op) {
      problems.push(`${call.method} ${call.path}: not in docs/openapi.yaml`);
      continue;
    }
    operations.add(`${call.method} ${call.path.replace(/\/(\d+|[^/]*%[^/]*)(?=\/|$)/g, '/{}')}`);
    const documented = op.operation.responses?.[String(call.status)];
    if (call.body === null) {
      if (!documented) problems.push(`${call.method} ${call.path} ${call.status}: status not documented`);
      continue;
    }
    for (const e of validateResponse(call.method, call.path, call.status, call.contentType, call.body)) {
      problems.push(`${call.method} ${call.path}${call.query} ${call.status}: ${e}`);
    }
  }
  assert.deepEqual(problems, []);
  console.log(`console API calls checked against docs/openapi.yaml: ${apiCalls.length} (${operations.size} operations)`);
});

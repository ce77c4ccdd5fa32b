// The dashboard end to end in a real browser (issue #10, "Quality bar"): a
// user set up with the admin CLI sets a password and signs in, creates an API
// key and reads it once, registers the fixture site, starts a scan, waits for
// the report shown inline, revokes the key (through its confirmation page) and
// the API then answers 401 to it. Every page visited is photographed into the
// artifacts directory.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import {
  launchBrowser,
  PASSWORD,
  pathOf,
  setPassword,
  startStack,
  stopStack,
  watch,
} from '../lib/harness.mjs';

const EMAIL = 'owner@example.com';
const KEY_NAME = 'browser-e2e';
const SITE_NAME = 'Fixture site';
/** The report formats offered for download, in page order. */
const FORMATS = ['json', 'html', 'sarif', 'junit', 'csv', 'markdown'];
/** A scan of the small fixture site takes seconds; this only bounds a hang. */
const SCAN_TIMEOUT_MS = 120_000;

let stack;
let browser;

before(async () => {
  stack = await startStack({ name: 'dashboard', email: EMAIL });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (stack) {
    await stopStack(stack);
  }
});

/** `2026-11-21 13:16 UTC` (the dashboard's date format) as a Date. */
function parseWhen(text) {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}) UTC$/.exec(text.trim());
  assert.ok(m, `not a dashboard date: ${JSON.stringify(text)}`);
  return new Date(`${m[1]}T${m[2]}:00Z`);
}

/** Signs in on the sign-in page the browser is on; ends on `/sites`. */
async function signIn(page) {
  await page.fill('#email', EMAIL);
  await page.fill('#password', PASSWORD);
  await page.click('#sign-in');
  await page.waitForURL(`${stack.baseUrl}/sites`);
}

/** A link of the main navigation. */
function nav(page, name) {
  return page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
}

/** The API answer to `GET path` with the key, as `{status, body}`. */
async function api(path, key) {
  const resp = await fetch(`${stack.baseUrl}/api/v1${path}`, { headers: { 'X-API-Key': key } });
  return { status: resp.status, body: await resp.json() };
}

test('sign in, create a key shown once, scan the fixture site, revoke the key', async () => {
  const page = await browser.context.newPage();
  const shots = watch(page, 'dashboard');
  const base = stack.baseUrl;

  // --- password from the admin link, then sign in -------------------------
  await setPassword(page, stack, shots);
  assert.equal(await page.locator('h1').textContent(), 'Sign in');
  await shots.shot('login');
  await signIn(page);
  assert.equal(await page.locator('h1').textContent(), 'Sites');
  assert.match(await page.locator('header').innerText(), new RegExp(`${EMAIL} · Professional plan`));
  assert.equal(
    await page.locator('#scans-left').textContent(),
    'Scans today: 0 of 2 (Professional plan, 2 left; the count restarts at midnight UTC). Up to 100 pages per scan.',
  );
  await shots.shot('sites-empty');

  // The session cookie: HttpOnly, SameSite=Lax, not Secure on loopback http.
  const cookies = (await browser.context.cookies(base)).filter((c) => c.name === 'sitescan_session');
  assert.equal(cookies.length, 1, 'one session cookie');
  assert.equal(cookies[0].httpOnly, true);
  assert.equal(cookies[0].sameSite, 'Lax');
  assert.equal(cookies[0].secure, false);

  // --- Settings → API keys: create a key ------------------------------------
  await nav(page, 'API keys').click();
  await page.waitForURL(`${base}/settings/keys`);
  assert.equal(await nav(page, 'API keys').getAttribute('aria-current'), 'page');
  assert.equal(await page.locator('#keys').count(), 0, 'no key table before the first key');
  assert.equal(await page.locator('#expires').inputValue(), '90', 'the expiration defaults to 90 days');
  await shots.shot('keys-empty');
  await page.fill('#name', KEY_NAME);
  await page.fill('#description', 'created by the browser test');
  await page.selectOption('#expires', '30');
  await page.click('#create-key');
  await page.locator('#new-key').waitFor();
  assert.equal(await page.locator('h1').textContent(), 'Key created');
  const key = (await page.locator('#new-key').textContent()).trim();
  assert.match(key, /^key_[0-9a-f]{48}$/);
  assert.match(await page.locator('#key-warning').innerText(), /It is shown only this once/);
  await shots.shot('key-created');

  // The copy button (progressive enhancement) puts exactly the key on the clipboard.
  assert.equal(await page.locator('#copy-key').isVisible(), true, 'the script shows the copy button');
  await page.click('#copy-key');
  await page.locator('#new-key-copied', { hasText: 'Copied to the clipboard.' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);

  // Shown once: back on the list only the key's prefix is left (reloading
  // the page above is the separate test at the end of this file).
  await page.getByRole('link', { name: 'Done: back to API keys' }).click();
  await page.waitForURL(`${base}/settings/keys`);
  assert.equal((await page.content()).includes(key), false, 'the key is nowhere in the list page');
  const rows = page.locator('#keys tbody tr');
  assert.equal(await rows.count(), 1, 'exactly one key');
  const rowId = await rows.first().getAttribute('id');
  assert.match(rowId, /^key-kid_[0-9a-z]+$/);
  const kid = rowId.slice('key-'.length);
  const row = page.locator(`#${rowId}`);
  const cells = row.locator('td');
  assert.equal(await row.locator('th').innerText(), `${KEY_NAME}\ncreated by the browser test`);
  const shownPrefix = await cells.nth(0).innerText();
  assert.equal(shownPrefix, `${key.slice(0, 8)}…`, 'the list shows the key\'s prefix only');
  const created = parseWhen(await cells.nth(1).innerText());
  const expires = parseWhen(await cells.nth(2).innerText());
  assert.equal(expires - created, 30 * 24 * 3600 * 1000, 'expires 30 days after creation');
  assert.equal(await cells.nth(3).innerText(), 'Never', 'not used yet');
  assert.equal(await cells.nth(5).innerText(), 'Active');
  await shots.shot('keys-list');

  // --- register the fixture site ----------------------------------------------
  await nav(page, 'Sites').click();
  await page.waitForURL(`${base}/sites`);
  await page.fill('#url', stack.siteUrl);
  await page.fill('#name', SITE_NAME);
  await page.click('#register-site');
  await page.waitForURL(/\/sites\/site_[0-9a-z]+$/);
  const siteId = new URL(page.url()).pathname.split('/')[2];
  assert.equal(await page.locator('h1').textContent(), SITE_NAME);
  assert.equal(await page.getByText('Start URL:').innerText(), `Start URL: ${stack.siteUrl}`);
  assert.equal(await page.locator('#history').count(), 0, 'no scan history yet');
  await shots.shot('site-new');

  await nav(page, 'Sites').click();
  await page.waitForURL(`${base}/sites`);
  const siteRows = page.locator('#sites tbody tr');
  assert.equal(await siteRows.count(), 1, 'exactly one site');
  assert.equal(await siteRows.first().locator('th a').innerText(), SITE_NAME);
  assert.equal(await siteRows.first().locator('td.url').innerText(), stack.siteUrl);
  await shots.shot('sites-list');

  // --- start a scan -------------------------------------------------------------
  await siteRows.first().locator('th a').click();
  await page.waitForURL(`${base}/sites/${siteId}`);
  assert.equal(await page.locator('#cat-accessibility').isChecked(), true, 'accessibility is checked by default');
  for (const other of ['seo', 'security', 'performance', 'quality']) {
    assert.equal(await page.locator(`#cat-${other}`).isChecked(), false, `${other} is not checked by default`);
  }
  await page.selectOption('#priority', 'high');
  await page.click('#scan-now');
  await page.waitForURL(/\/scans\/scan_[0-9a-z]+$/);
  const scanPath = pathOf(page);
  const scanId = scanPath.split('/')[2];
  assert.equal(await page.locator('h1').textContent(), `Scan of ${SITE_NAME}`);
  assert.match(await page.locator('main').innerText(), / · rules: wcag-aa · priority high · up to 100 pages/);
  await shots.shot('scan-started');

  // --- the report, inline, once the page's polling sees the scan finish ----------
  // The page's script polls the status and reloads once the scan is over:
  // then the status is final and nothing polls any more.
  await page.waitForFunction(() => {
    const status = document.querySelector('#scan-status');
    return status !== null && !document.querySelector('[data-poll]')
      && ['completed', 'failed', 'canceled'].includes(status.textContent.trim());
  }, null, { timeout: SCAN_TIMEOUT_MS });
  assert.equal(pathOf(page), scanPath);
  assert.equal(
    (await page.locator('#scan-status').innerText()).trim(),
    'completed',
    `the scan ended: ${await page.locator('main').innerText()}`,
  );
  await page.locator('#summary').waitFor();
  await shots.shot('scan-report');

  // The summary on the page is the report's: compare with the JSON download.
  const json = await page.request.get(`${base}${scanPath}/download?format=json`);
  assert.equal(json.status(), 200);
  const report = await json.json();
  assert.equal(report.scan_id, scanId);
  const pages = report.stats.pages_fetched;
  assert.ok(pages > 0, 'the scan fetched pages of the fixture site');
  // Counted in the report's own words, singular or plural as the numbers say.
  const failed = report.findings.filter((f) => f.outcome === 'failed').length;
  const toReview = report.findings.filter((f) => f.outcome === 'cant-tell').length;
  assert.equal(failed + toReview, report.findings.length);
  const counted = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  const line = `${counted(pages, 'page', 'pages')} · ${counted(failed, 'finding', 'findings')}`
    + (toReview > 0 ? `, ${toReview} to review` : '');
  assert.equal(
    await page.locator('#summary').locator('xpath=preceding-sibling::p[1]').innerText(),
    line,
  );
  const summaryRows = await page.locator('#summary tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.children].map((c) => c.textContent.trim())));
  assert.deepEqual(
    summaryRows,
    Object.entries(report.summary)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([cat, s]) => [cat, s.score === null ? '–' : String(s.score),
        String(s.critical), String(s.serious), String(s.moderate), String(s.minor), String(s.cant_tell)]),
  );

  // Every format downloads.
  const links = page.locator('ul.downloads a');
  assert.deepEqual(await links.evaluateAll((as) => as.map((a) => a.getAttribute('href'))),
    FORMATS.map((f) => `${scanPath}/download?format=${f}`));
  for (const f of FORMATS) {
    const resp = await page.request.get(`${base}${scanPath}/download?format=${f}`);
    assert.equal(resp.status(), 200, `download ${f}`);
    assert.ok((await resp.body()).length > 0, `download ${f} is not empty`);
  }

  // The report in full: its own page in the dashboard's frame, the HTML
  // report of this scan filling it.
  await page.click('#view-report');
  await page.waitForURL(`${base}${scanPath}/full`);
  assert.equal(await page.locator('h1').first().innerText(), `Report: ${SITE_NAME}`);
  await nav(page, 'Sites').waitFor();
  const frame = page.frameLocator('iframe.report-full');
  assert.equal(await frame.locator('h1').first().innerText(), 'sitescan report');
  const header = await frame.locator('header.top p').nth(1).innerText();
  assert.ok(header.endsWith(` s · ${line}`), `the report counts as the page does: ${header}`);
  assert.ok((await frame.locator('body').innerText()).includes(stack.siteUrl), 'the report names the site');
  // Not a small box: the frame spans the main column and most of the viewport.
  const box = await page.locator('iframe.report-full').boundingBox();
  const viewport = page.viewportSize();
  assert.ok(box.height >= viewport.height * 0.6, `frame height ${box.height} of ${viewport.height}`);
  await shots.shot('report-full');

  // --- the findings explorer: filter by the first finding's rule, in the form -----
  await page.click('#explore-findings');
  await page.waitForURL(`${base}${scanPath}/findings`);
  const total = report.findings.length;
  assert.ok(total > 0, 'the fixture site has findings');
  const shown = Math.min(total, 50);
  assert.equal(await page.locator('#explorer-count').innerText(),
    `Findings 1–${shown} of ${total} matching (${total} in the report).`);
  await shots.shot('explorer');
  const ruleId = report.findings[0].rule_id;
  const ofRule = report.findings.filter((f) => f.rule_id === ruleId);
  await page.selectOption('#f-rule', ruleId);
  await page.click('#apply-filters');
  // The form sends every field (empty ones too): the rule is in the query.
  await page.waitForURL((u) => u.pathname === `${scanPath}/findings` && u.searchParams.get('rule') === ruleId);
  assert.equal(await page.locator('#explorer-count').innerText(),
    `Findings 1–${Math.min(ofRule.length, 50)} of ${ofRule.length} matching (${total} in the report).`);
  const rules = await page.locator('#findings tbody tr td:nth-child(2)').evaluateAll((tds) => tds.map((t) => t.textContent));
  assert.deepEqual(rules, ofRule.slice(0, 50).map(() => ruleId));
  assert.deepEqual(
    (await page.locator('#findings tbody tr td:nth-child(4)').evaluateAll((tds) => tds.map((t) => t.textContent))).sort(),
    ofRule.slice(0, 50).map((f) => f.page_url).sort(),
  );
  await shots.shot('explorer-filtered');
  // A search nothing matches empties the table; Clear brings every finding back.
  await page.fill('#f-q', 'no finding says this 8f3a');
  await page.click('#apply-filters');
  await page.waitForURL(/q=no\+finding/);
  assert.equal(await page.locator('#explorer-count').innerText(), `No findings match (of ${total} in the report).`);
  assert.equal(await page.locator('#findings').count(), 0);
  await shots.shot('explorer-empty');
  await page.click('#clear-filters');
  await page.waitForURL(`${base}${scanPath}/findings`);
  await page.goto(`${base}${scanPath}`);
  await page.locator('#summary').waitFor();
  await shots.shot('scan-report-again');

  // The site page now counts the scan and lists it.
  await page.getByRole('link', { name: SITE_NAME }).click();
  await page.waitForURL(`${base}/sites/${siteId}`);
  assert.match(await page.locator('#scans-left').textContent(), /^Scans today: 1 of 2 \(Professional plan, 1 left;/);
  const history = page.locator('#history tbody tr');
  assert.equal(await history.count(), 1, 'one scan in the history');
  assert.match(await history.first().innerText(), /completed/);
  assert.equal(await history.first().locator(`a[href="${scanPath}"]`).count(), 1, 'the history links the scan');
  await shots.shot('site-history');

  // --- the second scan spends the day's quota: "Scan now" is disabled, with why --
  await page.click('#scan-now');
  await page.waitForURL(/\/scans\/scan_[0-9a-z]+$/);
  await shots.shot('second-scan');
  await page.goto(`${base}/sites/${siteId}`);
  assert.equal(await page.locator('#scan-now').isDisabled(), true, 'Scan now is disabled');
  assert.equal(await page.locator('#scan-now').getAttribute('aria-describedby'), 'scan-now-reason');
  const reason = await page.locator('#scan-now-reason').innerText();
  const midnight = new Date();
  midnight.setUTCHours(24, 0, 0, 0);
  assert.equal(reason, 'Scan now is unavailable. Today\'s scans are used up: the Professional plan allows 2 scans per day (UTC) and 2 were started today.'
    + ` Scans can start again at ${midnight.toISOString().slice(0, 10)} 00:00 UTC.`);
  await shots.shot('site-quota-spent');

  // --- the key works on the API, on the same store ------------------------------
  const sites = await api('/sites', key);
  assert.equal(sites.status, 200);
  assert.deepEqual(sites.body.data.map((s) => [s.id, s.url, s.name]), [[siteId, stack.siteUrl, SITE_NAME]]);
  const scan = await api(`/scans/${scanId}`, key);
  assert.equal(scan.status, 200);
  assert.equal(scan.body.data.status, 'completed');

  // --- revoke it, through the confirmation page -------------------------------------
  await nav(page, 'API keys').click();
  await page.waitForURL(`${base}/settings/keys`);
  assert.notEqual(await page.locator(`#${rowId} td`).nth(3).innerText(), 'Never', 'last use is shown');
  await shots.shot('keys-used');
  await page.getByRole('link', { name: `Revoke ${KEY_NAME}` }).click();
  await page.waitForURL(`${base}/settings/keys/${kid}/revoke`);
  assert.equal(await page.locator('h1').textContent(), 'Revoke key');
  assert.match(await page.locator('main').innerText(), new RegExp(`Revoke the key “${KEY_NAME}” \\(${key.slice(0, 8)}…\\)\\?`));
  await shots.shot('revoke-confirm');
  // Still usable until confirmed.
  assert.equal((await api('/sites', key)).status, 200);
  await page.click('#confirm-revoke');
  await page.waitForURL(`${base}/settings/keys?revoked=${kid}`);
  assert.equal(
    await page.locator('p.notice').innerText(),
    `The key “${KEY_NAME}” is revoked: the API now refuses it.`,
  );
  assert.equal(await page.locator(`#${rowId} td`).nth(5).innerText(), 'Revoked');
  assert.equal(await page.locator(`#${rowId} a`).count(), 0, 'no revoke link on a revoked key');
  await shots.shot('keys-revoked');

  // --- the API refuses the revoked key ----------------------------------------------
  for (const path of ['/sites', `/scans/${scanId}`]) {
    const refused = await api(path, key);
    assert.equal(refused.status, 401, `GET ${path} with the revoked key`);
    assert.equal(refused.body.error.code, 'invalid_api_key');
  }

  // --- sign out: the pages need a session again ---------------------------------------
  await page.click('#sign-out');
  await page.waitForURL(`${base}/login?signed_out=1`);
  await shots.shot('signed-out');
  await page.goto(`${base}/settings/keys`);
  await page.waitForURL(`${base}/login?next=%2Fsettings%2Fkeys`);
  assert.equal(await page.locator('h1').textContent(), 'Sign in');
  await shots.shot('login-again');

  assert.deepEqual(shots.unshot(), [], 'every page visited was photographed');
  assert.deepEqual(shots.failed, [], 'no request of the pages failed (the icon included)');
  assert.deepEqual(shots.errors, [], 'no console errors (CSP violations included)');
  await page.close();
});

// Reloading the "Key created" page must neither show the key again nor make a
// second one: the creating POST answers with a redirect (post/redirect/get)
// to a page that shows the key once, from the session, and then only says it
// was shown.
test('reloading the key page shows no key and creates none', async () => {
  const page = await browser.context.newPage();
  const shots = watch(page, 'reload');
  const base = stack.baseUrl;
  await page.goto(`${base}/login`);
  await shots.shot('login');
  await signIn(page);
  await shots.shot('sites');
  await nav(page, 'API keys').click();
  await page.waitForURL(`${base}/settings/keys`);
  const before = await page.locator('#keys tbody tr').count();
  await shots.shot('keys');
  await page.fill('#name', 'reload-check');
  await page.click('#create-key');
  await page.locator('#new-key').waitFor();
  const key = (await page.locator('#new-key').textContent()).trim();
  await shots.shot('key-created');

  const shownAt = pathOf(page);
  assert.match(shownAt, /^\/settings\/keys\/kid_[0-9a-z]+\/created$/, 'a page of its own, the key not in its URL');

  await page.reload();
  await shots.shot('key-created-reloaded');
  assert.equal(pathOf(page), shownAt);
  assert.equal(await page.locator('#new-key').count(), 0, 'the reloaded page shows no key');
  assert.equal((await page.content()).includes(key), false, 'the key is nowhere in the reloaded page');
  assert.equal(await page.locator('h1').textContent(), 'Key already shown');
  assert.match(
    await page.locator('#key-shown').innerText(),
    new RegExp(`was shown only once, .* ${key.slice(0, 8)}…`),
  );

  await page.getByRole('link', { name: 'Back to API keys' }).click();
  await page.waitForURL(`${base}/settings/keys`);
  await shots.shot('keys-after');
  assert.equal(await page.locator('#keys tbody tr').count(), before + 1, 'one key more, not two');
  const kid = shownAt.split('/')[3];
  assert.equal(await page.locator(`#key-${kid} td`).first().innerText(), `${key.slice(0, 8)}…`);

  assert.deepEqual(shots.unshot(), [], 'every page visited was photographed');
  assert.deepEqual(shots.failed, [], 'no request of the pages failed');
  assert.deepEqual(shots.errors, [], 'no console errors (CSP violations included)');
  await page.close();
});

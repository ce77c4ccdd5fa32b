// Monitoring in the dashboard, in a real browser (issue #22, "A dashboard
// worth opening daily"): a site written by the test is scanned, changed (one
// failure fixed, one new) and scanned again; the findings explorer filters
// by impact, rule, "new only" and text and sorts, each view checked row by
// row against the scan's own JSON report; the new finding is marked a false
// positive with the keyboard through its "Mark…" control and shows marked,
// and the next scan's score and counts leave it out; the side-by-side
// comparison shows the fixed finding under A and the new one under B; the
// site page's trend chart is an SVG image with a name, date labels under
// each scan, a 0-100 value axis and one series per category whose points sit
// at the scans' scores; the full report fills the page. A second account, on
// the Professional plan (2 scans a day), spends its quota and finds "Scan
// now" disabled, with the reason, and out of the Tab order. Every page
// visited is photographed into the artifacts directory.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  focusState,
  launchBrowser,
  PASSWORD,
  pathOf,
  setPassword,
  startStack,
  stopStack,
  watch,
} from '../lib/harness.mjs';

const EMAIL = 'monitor@example.com';
const QUOTA_EMAIL = 'quota@example.com';
const SITE_NAME = 'Monitored site';
const NOTE = 'decorative team photo';
/** A scan of the three-page site takes seconds; this only bounds a hang. */
const SCAN_TIMEOUT_MS = 120_000;
/** The categories every scan of the monitored site checks (same config: comparable). */
const CHECKED = ['accessibility', 'seo'];
/** The dashboard's names of the categories. */
const LABELS = { accessibility: 'Accessibility (WCAG 2.1 AA)', seo: 'SEO' };

/** A page of the test's site. */
function html(title, body) {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8">${title === null ? '' : `<title>${title}</title>`}</head>
<body><main>${body}</main></body>
</html>
`;
}

const TEAM_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>\n';

/**
 * The site as first scanned: the contact page has no title (a failure the
 * second version fixes).
 */
function writeFirstVersion(dir) {
  writeFileSync(join(dir, 'index.html'), html('Monitored home',
    '<h1>Home</h1><p>Read <a href="/about.html">about the team</a> or <a href="/contact.html">contact us</a>.</p>'));
  writeFileSync(join(dir, 'about.html'), html('About the team',
    '<h1>About</h1><p>We are a small team.</p><p><a href="/">Home</a></p>'));
  writeFileSync(join(dir, 'contact.html'), html(null,
    '<h1>Contact</h1><p>Write to us.</p><p><a href="/">Home</a></p>'));
  writeFileSync(join(dir, 'team.svg'), TEAM_SVG);
}

/** The site as scanned second: the contact page's title fixed, an image without alt text new on the about page. */
function writeSecondVersion(dir) {
  writeFileSync(join(dir, 'about.html'), html('About the team',
    '<h1>About</h1><p>We are a small team.</p><img src="/team.svg"><p><a href="/">Home</a></p>'));
  writeFileSync(join(dir, 'contact.html'), html('Contact the monitored team',
    '<h1>Contact</h1><p>Write to us.</p><p><a href="/">Home</a></p>'));
}

let siteDir;
let stack;
let browser;

before(async () => {
  siteDir = mkdtempSync(join(tmpdir(), 'sitescan-monitored-'));
  writeFirstVersion(siteDir);
  stack = await startStack({
    name: 'monitoring',
    email: EMAIL,
    plan: 'enterprise',
    site: siteDir,
    users: [{ email: QUOTA_EMAIL, plan: 'professional' }],
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (stack) {
    await stopStack(stack);
  }
  if (siteDir) {
    rmSync(siteDir, { recursive: true, force: true });
  }
});

/** Signs in as `email` on the sign-in page the browser is on; ends on `/sites`. */
async function signIn(page, email) {
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await page.click('#sign-in');
  await page.waitForURL(`${stack.baseUrl}/sites`);
}

/** Registers the test's site from the sites page; ends on its page, returns its id. */
async function registerSite(page) {
  await page.fill('#url', stack.siteUrl);
  await page.fill('#name', SITE_NAME);
  await page.click('#register-site');
  await page.waitForURL(/\/sites\/site_[0-9a-z]+$/);
  return new URL(page.url()).pathname.split('/')[2];
}

/**
 * Starts a scan of `categories` from the site page the browser is on and
 * waits on the scan page until its polling shows it completed; returns the
 * scan's path and its JSON report.
 */
async function scanNow(page, shots, name, categories = CHECKED) {
  for (const c of ['accessibility', 'seo', 'security', 'performance', 'quality']) {
    await page.locator(`#cat-${c}`).setChecked(categories.includes(c));
  }
  await page.selectOption('#links', 'internal');
  await page.click('#scan-now');
  await page.waitForURL(/\/scans\/scan_[0-9a-z]+$/);
  const scanPath = pathOf(page);
  await page.waitForFunction(() => {
    const status = document.querySelector('#scan-status');
    return status !== null && !document.querySelector('[data-poll]')
      && ['completed', 'failed', 'canceled'].includes(status.textContent.trim());
  }, null, { timeout: SCAN_TIMEOUT_MS });
  assert.equal(pathOf(page), scanPath);
  assert.equal((await page.locator('#scan-status').innerText()).trim(), 'completed',
    `the scan ended: ${await page.locator('main').innerText()}`);
  await page.locator('#summary').waitFor();
  await shots.shot(name);
  const resp = await page.request.get(`${stack.baseUrl}${scanPath}/download?format=json`);
  assert.equal(resp.status(), 200);
  return { path: scanPath, id: scanPath.split('/')[2], report: await resp.json() };
}

/** The cells' text of the table rows matching `selector`, row by row. */
async function cells(page, selector) {
  return page.locator(selector).evaluateAll((trs) =>
    trs.map((tr) => [...tr.children].map((c) => c.innerText.trim())));
}

/** The explorer's rows as [impact, rule, category, page, where] (the columns a finding is told by). */
async function explorerRows(page) {
  if (await page.locator('#findings').count() === 0) {
    return [];
  }
  return (await cells(page, '#findings tbody tr')).map((r) => r.slice(0, 5));
}

/** A report's finding as the explorer's row shows it. */
function asRow(f, newOnes = new Set()) {
  const outcome = f.outcome === 'failed' ? '' : ' (to review)';
  const isNew = newOnes.has(`${f.rule_id} ${f.page_url} ${f.selector}`) ? ' new' : '';
  return [`${f.impact}${outcome}${isNew}`, f.rule_id, f.category, f.page_url, f.selector];
}

const IMPACT_RANK = { critical: 0, serious: 1, moderate: 2, minor: 3 };

/** The explorer's default order: impact, then rule, then page, then the report's order. */
function byImpact(findings) {
  return findings
    .map((f, i) => [f, i])
    .sort(([a, i], [b, j]) => IMPACT_RANK[a.impact] - IMPACT_RANK[b.impact]
      || (a.rule_id < b.rule_id ? -1 : a.rule_id > b.rule_id ? 1 : 0)
      || (a.page_url < b.page_url ? -1 : a.page_url > b.page_url ? 1 : 0)
      || i - j)
    .map(([f]) => f);
}

/** Applies the explorer's filter form with `values` (`#f-…` ids), checks the URL says so. */
async function filter(page, values) {
  for (const [id, v] of Object.entries(values)) {
    const el = page.locator(`#f-${id}`);
    const tag = await el.evaluate((e) => e.tagName);
    if (tag === 'SELECT') {
      await el.selectOption(v);
    } else if (id === 'new') {
      await el.setChecked(v === 'on');
    } else {
      await el.fill(v);
    }
  }
  await page.click('#apply-filters');
  // The form sends every field (an unticked box not at all).
  await page.waitForURL((u) => u.pathname.endsWith('/findings') && Object.entries(values).every(([k, v]) =>
    (u.searchParams.get(k) || '') === (k === 'new' ? (v === 'on' ? 'on' : '') : v)));
}

test('two scans of a changed site: explorer, triage mark, side by side, trend, full report', async () => {
  const page = await browser.context.newPage();
  const shots = watch(page, 'monitoring');
  const base = stack.baseUrl;
  const about = `${stack.siteUrl}about.html`;
  const contact = `${stack.siteUrl}contact.html`;

  await setPassword(page, stack, shots);
  await shots.shot('login');
  await signIn(page, EMAIL);
  assert.match(await page.locator('#scans-left').textContent(), /Enterprise plan/);
  await shots.shot('sites');
  const siteId = await registerSite(page);
  await shots.shot('site-new');
  assert.equal(await page.locator('#trend-heading').innerText(), 'Trend');
  assert.equal(
    await page.locator('#trend-heading').locator('xpath=following-sibling::p[1]').innerText(),
    'The trend shows once a scan has completed.',
  );

  // --- scan 1, then the site changes, scan 2 --------------------------------------
  const first = await scanNow(page, shots, 'scan-1');
  assert.equal(await page.locator('#changes').innerText(),
    'This is the first completed scan of this site with this configuration: nothing to compare with.');
  const titleMissing = first.report.findings.filter((f) => f.rule_id === 'document-title');
  assert.deepEqual(titleMissing.map((f) => f.page_url), [contact], 'the contact page has no title');
  assert.equal(first.report.findings.filter((f) => f.rule_id === 'image-alt').length, 0);

  writeSecondVersion(siteDir);
  await page.goto(`${base}/sites/${siteId}`);
  const second = await scanNow(page, shots, 'scan-2');
  const imageAlt = second.report.findings.filter((f) => f.rule_id === 'image-alt');
  assert.deepEqual(imageAlt.map((f) => [f.page_url, f.impact, f.outcome]), [[about, 'critical', 'failed']]);
  assert.equal(second.report.findings.filter((f) => f.rule_id === 'document-title').length, 0);

  // The scan page says what changed, and lists the new finding.
  const key = (f) => `${f.rule_id} ${f.page_url} ${f.selector}`;
  const firstKeys = new Set(first.report.findings.map(key));
  const secondKeys = new Set(second.report.findings.map(key));
  const fresh = second.report.findings.filter((f) => !firstKeys.has(key(f)));
  const fixed = first.report.findings.filter((f) => !secondKeys.has(key(f)));
  assert.deepEqual(fresh.map(key), imageAlt.map(key), 'the image is the one new finding');
  assert.deepEqual(fixed.map(key), titleMissing.map(key), 'the title is the one fixed finding');
  assert.equal(await page.locator('#changes').innerText(),
    `1 new since the previous scan / 1 fixed (compared with ${first.id})`);
  assert.deepEqual(await cells(page, '#new-findings tbody tr'),
    [['image-alt', 'critical', about, imageAlt[0].selector, imageAlt[0].message]]);

  // --- the findings explorer of scan 2 ---------------------------------------------
  await page.click('#explore');
  const explorer = `${second.path}/findings`;
  await page.waitForURL(`${base}${explorer}`);
  const all = second.report.findings;
  const newOnes = new Set(fresh.map(key));
  assert.equal(await page.locator('#explorer-count').innerText(),
    `Findings 1–${all.length} of ${all.length} matching (${all.length} in the report).`);
  assert.deepEqual(await explorerRows(page), byImpact(all).map((f) => asRow(f, newOnes)),
    'every finding, most severe first, the new one flagged');
  assert.equal(await page.locator('#findings tbody tr span.new').count(), 1, 'one row flagged new');
  await shots.shot('explorer');

  // By impact: only the critical image.
  await filter(page, { impact: 'critical' });
  assert.equal(await page.locator('#explorer-count').innerText(),
    `Findings 1–1 of 1 matching (${all.length} in the report).`);
  assert.deepEqual(await explorerRows(page), [['critical new', 'image-alt', 'accessibility', about, imageAlt[0].selector]]);
  await shots.shot('explorer-critical');

  // By rule (the impact reset): every finding of one SEO rule.
  const seoRule = byImpact(all.filter((f) => f.category === 'seo'))[0].rule_id;
  await filter(page, { impact: '', rule: seoRule });
  const ofRule = all.filter((f) => f.rule_id === seoRule);
  assert.deepEqual(await explorerRows(page), byImpact(ofRule).map((f) => asRow(f, newOnes)));
  await shots.shot('explorer-rule');

  // By a piece of the page URL: the contact page's findings.
  await filter(page, { rule: '', page: 'contact' });
  const onContact = all.filter((f) => f.page_url.includes('contact'));
  assert.ok(onContact.length >= 1);
  assert.deepEqual(await explorerRows(page), byImpact(onContact).map((f) => asRow(f, newOnes)));
  await shots.shot('explorer-page');

  // New only: the image, whatever else is asked for when it matches.
  await filter(page, { page: '', new: 'on' });
  assert.equal(new URL(page.url()).searchParams.get('new'), 'on');
  assert.deepEqual(await explorerRows(page), [['critical new', 'image-alt', 'accessibility', about, imageAlt[0].selector]]);
  await shots.shot('explorer-new-only');
  await filter(page, { category: 'seo' });
  assert.equal(await page.locator('#explorer-count').innerText(), `No findings match (of ${all.length} in the report).`);
  await shots.shot('explorer-new-seo');

  // A text search (case-insensitive, in the page URL among others), sorted by page.
  await filter(page, { category: '', new: 'off', q: 'ABOUT.html', sort: 'page' });
  const onAbout = all.filter((f) => [f.rule_id, f.message, f.selector, f.snippet, f.page_url]
    .some((t) => t.toLowerCase().includes('about.html')));
  assert.ok(onAbout.length >= 1);
  assert.deepEqual(
    await explorerRows(page),
    onAbout
      .map((f, i) => [f, i])
      .sort(([a, i], [b, j]) => (a.page_url < b.page_url ? -1 : a.page_url > b.page_url ? 1 : 0)
        || IMPACT_RANK[a.impact] - IMPACT_RANK[b.impact]
        || (a.rule_id < b.rule_id ? -1 : a.rule_id > b.rule_id ? 1 : 0) || i - j)
      .map(([f]) => asRow(f, newOnes)),
  );
  assert.equal(await page.locator('#f-sort').inputValue(), 'page');
  assert.equal(await page.locator('#f-q').inputValue(), 'ABOUT.html', 'the search box keeps the text as typed');
  await shots.shot('explorer-search');

  // --- mark the new finding a false positive, with the keyboard ---------------------------
  await page.goto(`${base}${explorer}?new=on`);
  await shots.shot('explorer-new');
  const row = page.locator('#findings tbody tr');
  assert.equal(await row.count(), 1);
  const fingerprint = await row.getAttribute('data-fingerprint');
  assert.equal(await row.getAttribute('data-mark'), null, 'not marked yet');
  assert.equal(await page.locator('#triage').innerText(),
    '0 marked on this site now. A marked finding counts in no score, count or gate of the scans started after it was marked; this scan\'s scores stay as they were when it completed.');
  const keys = page.keyboard;
  /** Checks where the focus is and that it shows (as keyboard.test.mjs does). */
  const focusOn = async (expected, step) => {
    const state = await focusState(page);
    assert.equal(state.what, expected, `${step}: focus order`);
    assert.equal(state.focusVisible, true, `${step}: ${expected} matches :focus-visible`);
    assert.ok(state.outline >= 2, `${step}: ${expected} has an outline of ${state.outline}px, want at least 2px`);
    assert.ok(state.contrast >= 3, `${step}: ${expected}'s outline contrasts ${state.contrast}:1, want at least 3:1`);
    assert.equal(state.onScreen, true, `${step}: ${expected} is on screen`);
  };
  // Tab from the "new only" box: the Filter button, Clear, then on into the
  // row, whose first control to take the focus is "Mark…".
  await page.locator('#f-new').focus();
  await keys.press('Tab');
  await focusOn('button#apply-filters "Filter"', 'filter');
  await keys.press('Tab');
  await focusOn('a#clear-filters "Clear"', 'clear');
  for (let i = 0; i < 5 && !(await page.evaluate(() => document.activeElement.closest('#findings'))); i += 1) {
    await keys.press('Tab');
  }
  await focusOn('summary "Mark…"', 'the first control of the row');
  await keys.press('Enter');
  assert.equal(await row.locator('details.mark-form').getAttribute('open'), '', 'Enter opens it');
  await shots.shot('mark-open', { fullPage: false });
  await keys.press('Tab');
  await focusOn('select#mark-status-0', 'mark status');
  assert.equal(await page.locator('#mark-status-0').inputValue(), 'ignored');
  await keys.press('ArrowDown');
  assert.equal(await page.locator('#mark-status-0').inputValue(), 'false_positive');
  await keys.press('Tab');
  await focusOn('input#mark-note-0', 'mark note');
  await keys.type(NOTE);
  await keys.press('Tab');
  await focusOn('button "Mark"', 'mark button');
  await shots.shot('mark-filled', { fullPage: false });
  await keys.press('Enter');
  await page.waitForURL(`${base}${explorer}?new=on#triage`);
  assert.equal(await row.getAttribute('data-mark'), 'false_positive');
  assert.equal(await row.locator('.mark-status').innerText(), 'False positive');
  assert.equal(await row.locator('.mark-status + .hint').innerText(), `Note: ${NOTE}`);
  assert.equal(await row.getByRole('button', { name: 'Unmark' }).count(), 1);
  assert.match(await page.locator('#triage').innerText(), /^1 marked on this site now\./);
  await shots.shot('marked');

  // --- the two scans side by side ------------------------------------------------------
  await page.goto(`${base}${second.path}`);
  await page.click('#compare-previous');
  await page.waitForURL(`${base}/scans/${first.id}/compare?with=${second.id}`);
  assert.equal(await page.locator('h1').innerText(), `Compare scans of ${SITE_NAME}`);
  const heads = await page.locator('#compare-scores thead th').allInnerTexts();
  assert.match(heads[1], /^A: \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
  assert.match(heads[2], /^B: \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
  assert.equal(heads[3], 'B − A');
  assert.equal(await page.locator('#compare-scores thead th a').first().getAttribute('href'), `/scans/${first.id}`);
  assert.equal(await page.locator('#compare-scores thead th a').nth(1).getAttribute('href'), `/scans/${second.id}`);
  const signed = (n) => (n >= 0 ? `+${n}` : `${n}`);
  const sum = (r, k) => Object.values(r.summary).reduce((n, c) => n + c[k], 0);
  const expectScores = CHECKED.map((c) => {
    const [a, b] = [first.report.summary[c].score, second.report.summary[c].score];
    return [`${LABELS[c]} score`, String(a), String(b), signed(b - a)];
  });
  const expectCounts = [['Critical', 'critical'], ['Serious', 'serious'], ['Moderate', 'moderate'],
    ['Minor', 'minor'], ['To review', 'cant_tell']].map(([label, k]) => {
    const [a, b] = [sum(first.report, k), sum(second.report, k)];
    return [label, String(a), String(b), signed(b - a)];
  });
  const [pa, pb] = [first.report.stats.pages_fetched, second.report.stats.pages_fetched];
  assert.deepEqual(await cells(page, '#compare-scores tbody tr'),
    [...expectScores, ...expectCounts, ['Pages', String(pa), String(pb), signed(pb - pa)]]);
  assert.equal(await page.locator('#only-a-heading').innerText(), 'Only in A (1): fixed in B');
  assert.deepEqual(await cells(page, '#only-a tbody tr'),
    [[titleMissing[0].impact, 'document-title', contact, titleMissing[0].selector, titleMissing[0].message]],
    'A has the failure B fixed');
  assert.equal(await page.locator('#only-b-heading').innerText(), 'Only in B (1): new in B');
  assert.deepEqual(await cells(page, '#only-b tbody tr'),
    [['critical', 'image-alt', about, imageAlt[0].selector, imageAlt[0].message]],
    'B has the new failure');
  await shots.shot('compare');

  // --- scan 3: the marked finding leaves the score and the counts --------------------------
  await page.goto(`${base}/sites/${siteId}`);
  const third = await scanNow(page, shots, 'scan-3');
  assert.equal(third.report.findings.filter((f) => f.rule_id === 'image-alt').length, 1,
    'still in the report');
  const a11y = (r) => r.summary.accessibility;
  assert.equal(a11y(second.report).critical, 1);
  assert.equal(a11y(third.report).critical, 0, 'the marked finding counts no more');
  assert.ok(a11y(third.report).score > a11y(second.report).score,
    `the score rises: ${a11y(second.report).score} → ${a11y(third.report).score}`);
  assert.equal(third.report.summary.seo.score, second.report.summary.seo.score);
  const summaryRow = await cells(page, '#summary tbody tr');
  assert.deepEqual(summaryRow.find((r) => r[0] === 'accessibility').slice(1, 3),
    [String(a11y(third.report).score), '0']);
  assert.equal(await page.locator('#changes').innerText(),
    `0 new since the previous scan / 0 fixed (compared with ${second.id})`);
  // Still shown, as marked, in the explorer of the new scan.
  await page.click('#explore');
  await page.waitForURL(`${base}${third.path}/findings`);
  await shots.shot('explorer-3');
  await filter(page, { rule: 'image-alt' });
  assert.equal(await page.locator(`#findings tbody tr[data-fingerprint="${fingerprint}"]`).getAttribute('data-mark'),
    'false_positive');
  await shots.shot('explorer-scan-3');

  // --- the trend on the site page ------------------------------------------------------------
  await page.goto(`${base}/sites/${siteId}`);
  const scans = [first, second, third];
  const chart = page.getByRole('img', { name: 'Scores per category over the last 3 completed scans' });
  assert.equal(await chart.count(), 1, 'the chart is an image named by its title');
  assert.equal(await chart.evaluate((e) => e.tagName), 'svg');
  // When each scan started, as the history (newest first) tells it.
  const history = await cells(page, '#history tbody tr');
  assert.deepEqual(history.map((r) => r[1]), ['completed', 'completed', 'completed']);
  assert.deepEqual(history.map((r) => r.slice(3, 5)).reverse(),
    scans.map((s) => CHECKED.map((c) => String(s.report.summary[c].score))));
  const whens = history.map((r) => r[0]).reverse();
  whens.forEach((w) => assert.match(w, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/));
  const dates = whens.map((w) => w.slice(0, 10));
  assert.equal(await page.locator('#trend-desc').textContent(),
    `From ${dates[0]} to ${dates[2]}: ${CHECKED.map((c) =>
      `${c} from ${scans[0].report.summary[c].score} to ${scans[2].report.summary[c].score}`).join('; ')}. The table below has every value.`);
  // The value axis: 0 to 100, bottom to top.
  const yTicks = await page.locator('svg.trend g.axis-y text').evaluateAll((ts) =>
    ts.map((t) => [t.textContent, Number(t.getAttribute('y'))]));
  assert.deepEqual(yTicks.map(([t]) => t), ['0', '25', '50', '75', '100']);
  assert.ok(yTicks[0][1] > yTicks[4][1], '0 at the bottom, 100 at the top');
  const grid = await page.locator('svg.trend g.axis-y line').evaluateAll((ls) => ls.map((l) => Number(l.getAttribute('y1'))));
  const [y0, y100] = [grid[0], grid[4]];
  // The date axis: a label under each scan, left to right: its date, or its
  // time after a label of the same day.
  const xLabels = await page.locator('svg.trend g.axis-x text.date').evaluateAll((ts) =>
    ts.map((t) => [t.textContent, Number(t.getAttribute('x'))]));
  assert.deepEqual(xLabels.map(([t]) => t),
    whens.map((w, i) => (i > 0 && dates[i - 1] === dates[i] ? w.slice(11, 16) : w.slice(5, 10))));
  assert.ok(xLabels[0][1] < xLabels[1][1] && xLabels[1][1] < xLabels[2][1]);
  // One series per category checked, each with a point per scan at its score.
  assert.deepEqual(await page.locator('svg.trend g.series').evaluateAll((gs) => gs.map((g) => g.getAttribute('class'))),
    CHECKED.map((c) => `series series-${c}`));
  for (const c of CHECKED) {
    const points = await page.locator(`svg.trend g.series-${c} circle`).evaluateAll((cs) =>
      cs.map((p) => ({ cx: Number(p.getAttribute('cx')), cy: Number(p.getAttribute('cy')), title: p.querySelector('title').textContent })));
    assert.equal(points.length, 3, `${c}: a point per scan`);
    points.forEach((p, i) => {
      const score = scans[i].report.summary[c].score;
      assert.ok(Math.abs(p.cx - xLabels[i][1]) < 0.05, `${c} point ${i} above its date`);
      assert.ok(Math.abs(p.cy - (y0 + ((y100 - y0) * score) / 100)) < 0.1, `${c} point ${i} at ${score} on the value axis (cy ${p.cy})`);
      assert.equal(p.title, `${c} ${score} on ${whens[i]}`);
    });
    assert.equal(await page.locator(`svg.trend g.series-${c} polyline`).count(), 1, `${c}: one line`);
  }
  assert.deepEqual(await page.locator('figure.trend ul.legend li').allInnerTexts(), CHECKED.map((c) => LABELS[c]));
  // The same numbers as a table.
  await page.locator('details.trend-data summary').click();
  assert.deepEqual((await cells(page, '#trend-data tbody tr')).map((r) => r.slice(1)),
    scans.map((s) => CHECKED.map((c) => String(s.report.summary[c].score))));
  await shots.shot('site-trend');

  // --- the full report -------------------------------------------------------------------
  await page.goto(`${base}${third.path}`);
  await page.click('#view-report');
  await page.waitForURL(`${base}${third.path}/full`);
  assert.equal(await page.locator('h1').first().innerText(), `Report: ${SITE_NAME}`);
  const frame = page.frameLocator('iframe.report-full');
  assert.equal(await frame.locator('h1').first().innerText(), 'sitescan report');
  assert.ok((await frame.locator('body').innerText()).includes(about), 'the report lists the pages');
  const box = await page.locator('iframe.report-full').boundingBox();
  const mainBox = await page.locator('main').boundingBox();
  const viewport = page.viewportSize();
  assert.ok(box.width >= mainBox.width * 0.9, `frame width ${box.width} of main's ${mainBox.width}`);
  assert.ok(box.height >= viewport.height * 0.6, `frame height ${box.height} of ${viewport.height}`);
  await shots.shot('report-full');

  await page.click('#sign-out');
  await page.waitForURL(`${base}/login?signed_out=1`);
  await shots.shot('signed-out');

  assert.deepEqual(shots.unshot(), [], 'every page visited was photographed');
  assert.deepEqual(shots.failed, [], 'no request of the pages failed');
  assert.deepEqual(shots.errors, [], 'no console errors (CSP violations included)');
  await page.close();
});

test('"Scan now" is disabled, with the reason, once the plan\'s scans are used up', async () => {
  // Another user: no session of the first test's may be left.
  await browser.context.clearCookies();
  const page = await browser.context.newPage();
  const shots = watch(page, 'monitoring-quota');
  const base = stack.baseUrl;
  await setPassword(page, stack, shots, stack.users[QUOTA_EMAIL].passwordToken);
  await shots.shot('login');
  await signIn(page, QUOTA_EMAIL);
  await shots.shot('sites');
  const siteId = await registerSite(page);
  await shots.shot('site');
  assert.equal(await page.locator('#scan-now').isDisabled(), false);
  assert.equal(await page.locator('#scan-now-reason').count(), 0);
  await scanNow(page, shots, 'scan-1', ['accessibility']);
  await page.goto(`${base}/sites/${siteId}`);
  assert.match(await page.locator('#scans-left').textContent(), /^Scans today: 1 of 2 \(Professional plan, 1 left;/);
  assert.equal(await page.locator('#scan-now').isDisabled(), false, 'one scan left');
  await shots.shot('one-left');
  await scanNow(page, shots, 'scan-2', ['accessibility']);
  await page.goto(`${base}/sites/${siteId}`);
  assert.match(await page.locator('#scans-left').textContent(), /^Scans today: 2 of 2 \(Professional plan, 0 left;/);
  const button = page.getByRole('button', { name: 'Scan now' });
  assert.equal(await button.isDisabled(), true, 'Scan now is disabled');
  const midnight = new Date();
  midnight.setUTCHours(24, 0, 0, 0);
  const reason = 'Scan now is unavailable. Today\'s scans are used up: the Professional plan allows 2 scans per day (UTC) and 2 were started today.'
    + ` Scans can start again at ${midnight.toISOString().slice(0, 10)} 00:00 UTC.`;
  assert.equal(await page.locator('#scan-now-reason').innerText(), reason);
  // The reason is the button's accessible description, and shows beside it.
  assert.equal(await button.getAttribute('aria-describedby'), 'scan-now-reason');
  assert.equal(await page.locator('#scan-now-reason').isVisible(), true);
  // Out of the Tab order: from the last field of the form, Tab goes past it
  // to the next control, the trend's table.
  await page.locator('#max-screenshots').focus();
  await page.keyboard.press('Tab');
  assert.equal((await focusState(page)).what, 'summary "The trend as a table"');
  await shots.shot('quota-spent');

  assert.deepEqual(shots.unshot(), [], 'every page visited was photographed');
  assert.deepEqual(shots.failed, [], 'no request of the pages failed');
  assert.deepEqual(shots.errors, [], 'no console errors (CSP violations included)');
  await page.close();
});

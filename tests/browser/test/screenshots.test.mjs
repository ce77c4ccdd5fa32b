// Render mode's pictures in the findings explorer, in a real browser (issue
// #21): `sitescan serve` renders a scan of a page with two images without a
// text alternative (at known sizes), started from the dashboard with "Render
// with a browser"; in the explorer each of the two `image-alt` rows shows its
// own element's picture, which Chromium actually loads from the dashboard's
// origin (no CSP violation, no failed request) at the size the engine clipped
// it (the element's box plus 16 CSS pixels of margin each side), and its link
// opens the picture at full size; the page's thumbnail shows once, in the
// first row's page cell, also loaded from the dashboard's origin.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  launchBrowser,
  PASSWORD,
  setPassword,
  startStack,
  stopStack,
  watch,
} from '../lib/harness.mjs';

const EMAIL = 'pictures@example.com';
const SITE_NAME = 'Pictures';
/** A render scan of one small page takes seconds; this only bounds a hang. */
const SCAN_TIMEOUT_MS = 120_000;
/** The engine's margin around a pictured element (CSS pixels, each side). */
const MARGIN = 16;

/** The page: `#a` is 100 by 50 CSS pixels, `#b` 40 by 30; neither has alt text. */
const PAGE = `<!doctype html>
<html lang="en"><head><title>Pictures</title>
<style>html, body { margin: 0; background: #fff } img { position: absolute; display: block }</style></head>
<body><h1 style="margin: 0; font-size: 16px">Pictures</h1>
<img id="a" src="/green.svg" style="left: 200px; top: 150px; width: 100px; height: 50px">
<img id="b" src="/green.svg" style="left: 600px; top: 400px; width: 40px; height: 30px">
</body></html>`;
const GREEN_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" viewBox="0 0 10 10" preserveAspectRatio="none"><rect width="10" height="10" fill="#00aa00"/></svg>';
/** The size of each element's picture. */
const SIZES = { '#a': [100 + 2 * MARGIN, 50 + 2 * MARGIN], '#b': [40 + 2 * MARGIN, 30 + 2 * MARGIN] };

let siteDir;
let stack;
let browser;

before(async () => {
  siteDir = mkdtempSync(join(tmpdir(), 'sitescan-pictures-'));
  writeFileSync(join(siteDir, 'index.html'), PAGE);
  writeFileSync(join(siteDir, 'green.svg'), GREEN_SVG);
  writeFileSync(join(siteDir, 'robots.txt'), 'User-agent: *\nAllow: /\n');
  stack = await startStack({ name: 'screenshots', email: EMAIL, site: siteDir, render: true });
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

test('the explorer shows each failing element\'s picture, loaded by the browser', async () => {
  const page = await browser.context.newPage();
  const shots = watch(page, 'screenshots');
  const base = stack.baseUrl;

  await setPassword(page, stack, shots);
  await page.fill('#email', EMAIL);
  await page.fill('#password', PASSWORD);
  await page.click('#sign-in');
  await page.waitForURL(`${base}/sites`);

  // Register the page's site and start a render scan from its page.
  await page.fill('#url', stack.siteUrl);
  await page.fill('#name', SITE_NAME);
  await page.click('#register-site');
  await page.waitForURL(/\/sites\/site_[0-9a-z]+$/);
  await page.check('#render');
  await shots.shot('site');
  await page.click('#scan-now');
  await page.waitForURL(/\/scans\/scan_[0-9a-z]+$/);
  const scanPath = new URL(page.url()).pathname;
  const scanId = scanPath.split('/')[2];
  await page.waitForFunction(() => {
    const status = document.querySelector('#scan-status');
    return status !== null && !document.querySelector('[data-poll]')
      && ['completed', 'failed', 'canceled'].includes(status.textContent.trim());
  }, null, { timeout: SCAN_TIMEOUT_MS });
  assert.equal(
    (await page.locator('#scan-status').innerText()).trim(),
    'completed',
    `the scan ended: ${await page.locator('main').innerText()}`,
  );
  await shots.shot('scan');

  // What the report names: a picture per image without alt text.
  const resp = await page.request.get(`${base}${scanPath}/download?format=json`);
  assert.equal(resp.status(), 200);
  const report = await resp.json();
  const pictured = report.findings.filter((f) => f.screenshot);
  assert.deepEqual(
    pictured.map((f) => [f.rule_id, f.selector]).sort(),
    [['image-alt', '#a'], ['image-alt', '#b']],
  );

  // The explorer, filtered to the rule: one row per element, each with its picture.
  await page.goto(`${base}${scanPath}/findings?rule=image-alt`);
  await page.locator('#findings').waitFor();
  const rows = page.locator('#findings tbody tr');
  assert.equal(await rows.count(), 2);
  for (const finding of pictured) {
    const row = rows.filter({ has: page.locator('td:nth-child(5) code', { hasText: new RegExp(`^${finding.selector}$`) }) });
    assert.equal(await row.count(), 1, `one row about ${finding.selector}`);
    const img = row.locator('img.shot');
    assert.equal(await img.count(), 1, `the row about ${finding.selector} has one picture`);
    const src = `/scans/${scanId}/screenshots/${finding.screenshot}`;
    assert.equal(await img.getAttribute('src'), src);
    assert.equal(await img.getAttribute('alt'), `Screenshot of ${finding.selector} (rule image-alt), framed in magenta`);
    assert.equal(await img.getAttribute('loading'), 'lazy');
    assert.equal(await row.locator('a.shot').getAttribute('href'), src);
    // Loaded by the browser (lazily: scrolled to), at the clipped size.
    await img.scrollIntoViewIfNeeded();
    const handle = await img.elementHandle();
    await page.waitForFunction((el) => el.complete && el.naturalWidth > 0, handle, { timeout: 10_000 });
    const natural = await img.evaluate((el) => [el.naturalWidth, el.naturalHeight]);
    assert.deepEqual(natural, SIZES[finding.selector], `the picture of ${finding.selector}`);
    const shown = await img.boundingBox();
    assert.ok(shown.width > 0 && shown.height > 0, 'the picture is shown');
  }
  // The page's thumbnail: once, in the page cell of the first row (both
  // findings are on the one page), loaded by the browser as a JPEG.
  const thumbId = report.pages[0].thumbnail;
  assert.match(thumbId, /^thumb-[0-9]+$/);
  const thumbs = page.locator('#findings img.thumb');
  assert.equal(await thumbs.count(), 1);
  assert.equal(await rows.first().locator('td.url img.thumb').count(), 1);
  const thumbSrc = `/scans/${scanId}/screenshots/${thumbId}`;
  const pageUrl = report.findings[0].page_url;
  assert.equal(await thumbs.getAttribute('src'), thumbSrc);
  assert.equal(await thumbs.getAttribute('alt'), `Thumbnail of the page ${pageUrl} as rendered (its first screen)`);
  assert.equal(await thumbs.getAttribute('loading'), 'lazy');
  assert.deepEqual([await thumbs.getAttribute('width'), await thumbs.getAttribute('height')], ['128', '80']);
  await thumbs.scrollIntoViewIfNeeded();
  const thumbHandle = await thumbs.elementHandle();
  await page.waitForFunction((el) => el.complete && el.naturalWidth > 0, thumbHandle, { timeout: 10_000 });
  const thumbBox = await thumbs.boundingBox();
  assert.ok(thumbBox.width > 0 && thumbBox.width <= 128 && thumbBox.height <= 80, 'the thumbnail is shown in its box');
  const thumbResp = await page.request.get(`${base}${thumbSrc}`);
  assert.equal(thumbResp.status(), 200);
  assert.equal(thumbResp.headers()['content-type'], 'image/jpeg');
  await shots.shot('explorer-pictures');

  // The link opens the picture at full size.
  const first = pictured.find((f) => f.selector === '#a');
  const [opened] = await Promise.all([
    page.waitForResponse((r) => r.url() === `${base}/scans/${scanId}/screenshots/${first.screenshot}`),
    rows.locator(`a.shot[href$="/${first.screenshot}"]`).click(),
  ]);
  assert.equal(opened.status(), 200);
  assert.equal(opened.headers()['content-type'], 'image/png');
  await page.waitForURL(`${base}/scans/${scanId}/screenshots/${first.screenshot}`);
  const full = await page.evaluate(() => {
    const img = document.querySelector('img');
    return img ? [img.naturalWidth, img.naturalHeight] : null;
  });
  assert.deepEqual(full, SIZES['#a']);

  assert.deepEqual(shots.errors, [], 'no console errors (CSP violations show there)');
  assert.deepEqual(shots.failed, [], 'no failed requests');
});

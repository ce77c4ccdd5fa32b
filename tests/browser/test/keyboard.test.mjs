// Keyboard-only use of the dashboard (issue #10, "Quality bar"): sign in and
// create an API key with Tab, typing, Enter and Space alone. After every Tab
// the test checks which element has the focus (the expected order) and that
// the focus is visible: `:focus-visible` matches, the outline is at least
// 2px, contrasts 3:1 with what is behind it (WCAG 2.4.7, 1.4.11), and the
// element is on screen. Each step is photographed with its focus ring.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import {
  focusState,
  launchBrowser,
  PASSWORD,
  setPassword,
  startStack,
  stopStack,
  watch,
} from '../lib/harness.mjs';

const EMAIL = 'keyboard@example.com';
const KEY_NAME = 'keyboard-key';
const DESCRIPTION = 'made without a mouse';

let stack;
let browser;

before(async () => {
  stack = await startStack({ name: 'keyboard', email: EMAIL });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (stack) {
    await stopStack(stack);
  }
});

test('sign in and create a key with the keyboard alone, the focus visible at every step', async () => {
  const page = await browser.context.newPage();
  const shots = watch(page, 'keyboard');
  const base = stack.baseUrl;
  const keys = page.keyboard;

  /** Presses Tab and checks where the focus went and that it shows. */
  const tab = async (expected, step) => {
    await keys.press('Tab');
    const state = await focusState(page);
    assert.equal(state.what, expected, `${step}: focus order`);
    assert.equal(state.focusVisible, true, `${step}: ${expected} matches :focus-visible`);
    assert.ok(state.outline >= 2, `${step}: ${expected} has an outline of ${state.outline}px, want at least 2px`);
    assert.ok(state.contrast >= 3, `${step}: ${expected}'s outline contrasts ${state.contrast}:1, want at least 3:1`);
    assert.equal(state.onScreen, true, `${step}: ${expected} is on screen`);
    await shots.shot(step, { fullPage: false });
  };

  /** Follows the skip link: the focus moves to `main`, the next Tab goes into it. */
  const skipToMain = async (step) => {
    await tab('a "Skip to main content"', `${step}-skip-link`);
    await keys.press('Enter');
    assert.equal((await focusState(page)).what.split(' ')[0], 'main#main', `${step}: the skip link moves the focus to main`);
    await shots.shot(`${step}-main`, { fullPage: false });
  };

  await setPassword(page, stack, shots);
  await shots.shot('login');

  // --- sign in ------------------------------------------------------------------
  await tab('a "Skip to main content"', 'login-skip-link');
  await tab('a "sitescan"', 'login-brand');
  await tab('input#email', 'login-email');
  await keys.type(EMAIL);
  await tab('input#password', 'login-password');
  await keys.type(PASSWORD);
  await tab('button#sign-in "Sign in"', 'login-button');
  await keys.press('Enter');
  await page.waitForURL(`${base}/sites`);
  await shots.shot('sites');

  // --- the navigation to Settings → API keys ------------------------------------------
  await tab('a "Skip to main content"', 'sites-skip-link');
  await tab('a "sitescan"', 'sites-brand');
  await tab('a "Sites"', 'sites-nav-sites');
  await tab('a "API keys"', 'sites-nav-keys');
  await keys.press('Enter');
  await page.waitForURL(`${base}/settings/keys`);
  await shots.shot('keys');

  // --- the creation form: skip link, then the fields in order -------------------------------
  await skipToMain('keys');
  await tab('input#name', 'keys-name');
  await keys.type(KEY_NAME);
  await tab('textarea#description', 'keys-description');
  await keys.type(DESCRIPTION);
  await tab('select#expires', 'keys-expires');
  assert.equal(await page.locator('#expires').inputValue(), '90', 'the default expiration');
  await keys.press('ArrowDown');
  assert.equal(await page.locator('#expires').inputValue(), '180', 'ArrowDown picks the next period');
  await shots.shot('keys-expires-180', { fullPage: false });
  await tab('button#create-key "Create key"', 'keys-create');
  await keys.press('Space');
  await page.locator('#new-key').waitFor();
  assert.equal(await page.locator('h1').textContent(), 'Key created');
  const key = (await page.locator('#new-key').textContent()).trim();
  assert.match(key, /^key_[0-9a-f]{48}$/);
  await shots.shot('key-created');

  // --- the key page: copy with the keyboard, then back to the list ------------------------------
  await skipToMain('created');
  await tab('button#copy-key "Copy key"', 'created-copy');
  await keys.press('Enter');
  await page.locator('#new-key-copied', { hasText: 'Copied to the clipboard.' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
  await shots.shot('created-copied', { fullPage: false });
  await tab('a "Done: back to API keys"', 'created-done');
  await keys.press('Enter');
  await page.waitForURL(`${base}/settings/keys`);

  // What the keyboard made is what the form said.
  const rows = page.locator('#keys tbody tr');
  assert.equal(await rows.count(), 1, 'exactly one key');
  assert.equal(await rows.first().locator('th').innerText(), `${KEY_NAME}\n${DESCRIPTION}`);
  const cells = rows.first().locator('td');
  assert.equal(await cells.nth(0).innerText(), `${key.slice(0, 8)}…`);
  const day = (text) => Date.parse(text.replace(' UTC', 'Z').replace(' ', 'T'));
  assert.equal(
    day(await cells.nth(2).innerText()) - day(await cells.nth(1).innerText()),
    180 * 24 * 3600 * 1000,
    'expires 180 days after creation',
  );
  await shots.shot('keys-list');

  assert.deepEqual(shots.unshot(), [], 'every page visited was photographed');
  assert.deepEqual(shots.failed, [], 'no request of the pages failed (the icon included)');
  assert.deepEqual(shots.errors, [], 'no console errors (CSP violations included)');
  await page.close();
});

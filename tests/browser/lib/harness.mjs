// The browser tests' harness: the binaries, a fixture site, `sitescan serve`
// on a free loopback port with a fresh data directory, an account and a
// dashboard user made with the admin CLI, Debian's chromium driven by
// playwright-core, screenshots as artifacts, and the teardown of all of it.
//
// Environment:
//   SITESCAN_BIN                the sitescan binary (default: built with cargo,
//                               `<target>/debug/sitescan`)
//   SITESCAN_FIXTURE_BIN        the fixture server (default: built with cargo,
//                               `<target>/debug/examples/serve` of sitescan-fixtures)
//   SITESCAN_CHROMIUM           the browser (default: /usr/bin/chromium, else
//                               chromium or chromium-browser on PATH)
//   SITESCAN_BROWSER_ARTIFACTS  where screenshots and logs go (default:
//                               `<target>/browser-artifacts`)
//   CARGO_TARGET_DIR            `<target>` above (default: `target` of the repository)

import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, rmSync, accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

import { chromium } from 'playwright-core';

/** The repository's root (tests/browser/lib/ → three levels up). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Cargo's target directory, as cargo itself picks it. */
export const TARGET = process.env.CARGO_TARGET_DIR
  ? resolve(ROOT, process.env.CARGO_TARGET_DIR)
  : join(ROOT, 'target');

/** Where screenshots and process logs are written. */
export const ARTIFACTS = process.env.SITESCAN_BROWSER_ARTIFACTS
  ? resolve(process.env.SITESCAN_BROWSER_ARTIFACTS)
  : join(TARGET, 'browser-artifacts');

/** The fixture site every test scans (`fixtures/sites/basic`). */
export const FIXTURE_SITE = 'basic';

/**
 * Chromium's switches. Without the background-networking ones Chromium keeps
 * trying to reach Google's services and hangs on a machine without outside
 * network; `--headless` itself is added by playwright (`headless: true`), and
 * the fresh `--user-data-dir` is the persistent context's directory.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** How long a process may take to announce its address. */
const START_TIMEOUT_MS = 60_000;
/** How long a process may take to stop after SIGTERM before it is killed. */
const STOP_TIMEOUT_MS = 15_000;

function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name) {
  for (const dir of (process.env.PATH || '').split(delimiter)) {
    if (dir && isExecutable(join(dir, name))) {
      return join(dir, name);
    }
  }
  return null;
}

/** The browser executable, or an error saying how to get one. */
export function chromiumPath() {
  const given = process.env.SITESCAN_CHROMIUM;
  if (given) {
    if (!isExecutable(given)) {
      throw new Error(`SITESCAN_CHROMIUM=${given} is not an executable file`);
    }
    return given;
  }
  const found = ['/usr/bin/chromium'].find(isExecutable) || onPath('chromium') || onPath('chromium-browser');
  if (!found) {
    throw new Error('no chromium found: install Debian\'s chromium (apt-get install chromium) or set SITESCAN_CHROMIUM');
  }
  return found;
}

/**
 * The two binaries the tests run. Paths given in the environment are used as
 * they are; otherwise cargo builds both in one invocation (quick when they are
 * fresh). `--workspace` keeps the workspace's feature unification, so this
 * reuses what `cargo test --workspace` compiled instead of rebuilding
 * dependencies with the fixture crate's smaller feature set.
 */
export function binaries() {
  const given = { sitescan: process.env.SITESCAN_BIN, fixture: process.env.SITESCAN_FIXTURE_BIN };
  if (!given.sitescan || !given.fixture) {
    const cargo = spawnSync(
      'cargo',
      ['build', '--locked', '--workspace', '--bin', 'sitescan', '--example', 'serve'],
      { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    if (cargo.error) {
      throw new Error(`cannot run cargo to build the binaries: ${cargo.error.message} (or set SITESCAN_BIN and SITESCAN_FIXTURE_BIN)`);
    }
    if (cargo.status !== 0) {
      throw new Error(`cargo build failed (exit ${cargo.status}):\n${cargo.stderr}`);
    }
  }
  const sitescan = given.sitescan ? resolve(given.sitescan) : join(TARGET, 'debug', 'sitescan');
  const fixture = given.fixture ? resolve(given.fixture) : join(TARGET, 'debug', 'examples', 'serve');
  for (const [name, path] of [['sitescan', sitescan], ['fixture server', fixture]]) {
    if (!isExecutable(path)) {
      throw new Error(`the ${name} binary ${path} is missing or not executable`);
    }
  }
  return { sitescan, fixture };
}

/**
 * The environment of the child processes: ours without any `SITESCAN_*`
 * setting (a developer's `SITESCAN_REDIS_URL` or `SITESCAN_DATA_DIR` must not
 * leak into the tests' servers) and without Rust log noise.
 */
function childEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('SITESCAN_') && k !== 'RUST_LOG') {
      env[k] = v;
    }
  }
  return env;
}

/** Processes started here and not yet stopped: killed if the runner exits early. */
const live = new Set();
process.on('exit', () => {
  for (const child of live) {
    child.kill('SIGKILL');
  }
});

/**
 * Starts a long-running process whose first stdout line announces where it
 * listens; its stderr goes to `<ARTIFACTS>/<logName>`. Resolves with the child
 * and that line; rejects when it exits or stays silent first.
 */
function startAnnouncing(cmd, args, logName, extraEnv = {}) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const logPath = join(ARTIFACTS, logName);
  const log = createWriteStream(logPath);
  const env = { ...childEnv(), ...extraEnv };
  const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  child.stderr.pipe(log);
  child.on('exit', () => live.delete(child));
  return new Promise((resolvePromise, reject) => {
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')} did not announce its address in ${START_TIMEOUT_MS} ms (log: ${logPath})`));
    }, START_TIMEOUT_MS);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolvePromise({ child, line, logPath });
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} ${args.join(' ')} exited (${code ?? signal}) before announcing its address (log: ${logPath})`));
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot start ${cmd}: ${e.message}`));
    });
  });
}

/** Stops a child with SIGTERM (graceful), then SIGKILL after a while. */
async function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** Runs `sitescan admin ...` on the data directory and parses its JSON output. */
function admin(bin, dataDir, args) {
  const out = execFileSync(bin, ['admin', '--data-dir', dataDir, ...args], {
    cwd: ROOT,
    env: childEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(out);
}

/** The one-time password token of an `admin user create` answer. */
function passwordToken(user) {
  const token = new URL(user.password_link).searchParams.get('token');
  if (!token) {
    throw new Error(`the password link ${user.password_link} has no token`);
  }
  return token;
}

/**
 * The environment `sitescan serve` needs to render with the browser the
 * tests use: that browser, and (only when the tests run as root, where
 * Chromium refuses its sandbox) the sandbox off.
 */
function renderEnv() {
  const env = { SITESCAN_CHROMIUM: chromiumPath() };
  if (typeof process.getuid === 'function' && process.getuid() === 0) {
    env.SITESCAN_CHROMIUM_NO_SANDBOX = '1';
  }
  return env;
}

/**
 * Everything a test needs, started in order: the fixture site (`site`: a
 * name of fixtures/sites/ or a folder's absolute path), the account and user
 * (admin CLI, before `serve` opens the redb file: one process at a time),
 * each of `users` (`{ email, plan }`: an account of its own each, in
 * `stack.users[email]` as `{ account, userId, passwordToken }`), then
 * `sitescan serve`; with `render`, `serve`'s worker renders scans in the
 * tests' Chromium. `name` prefixes the log files in the artifacts
 * directory. `stopStack()` ends them in reverse.
 */
export async function startStack({ name, email, plan = 'professional', site = FIXTURE_SITE, users = [], render = false }) {
  const bins = binaries();
  const dataDir = mkdtempSync(join(tmpdir(), 'sitescan-browser-'));
  const stack = { dataDir, email, children: [], users: {} };
  try {
    const fixture = await startAnnouncing(bins.fixture, [site], `${name}-fixture.log`);
    stack.children.push(fixture.child);
    stack.siteUrl = fixture.line.trim();
    if (!/^http:\/\/127\.0\.0\.1:\d+\/$/.test(stack.siteUrl)) {
      throw new Error(`the fixture server announced ${JSON.stringify(fixture.line)}, not a loopback URL`);
    }

    stack.account = admin(bins.sitescan, dataDir, ['account', 'create', '--plan', plan, '--name', 'Browser tests']);
    const user = admin(bins.sitescan, dataDir, ['user', 'create', '--account', stack.account.id, '--email', email]);
    // The link names the default dashboard address; the token is what counts:
    // the tests open it on the server's real (free) port.
    stack.passwordToken = passwordToken(user);
    stack.userId = user.id;
    for (const extra of users) {
      const account = admin(bins.sitescan, dataDir, ['account', 'create', '--plan', extra.plan, '--name', `Browser tests (${extra.plan})`]);
      const u = admin(bins.sitescan, dataDir, ['user', 'create', '--account', account.id, '--email', extra.email]);
      stack.users[extra.email] = { account, userId: u.id, passwordToken: passwordToken(u) };
    }

    // Loopback bind: the session cookie is not `Secure`, so it works over
    // plain http; --allow-private lets it scan the fixture site on 127.0.0.1.
    const serve = await startAnnouncing(
      bins.sitescan,
      ['serve', '--bind', '127.0.0.1:0', '--data-dir', dataDir, '--workers', '1', '--allow-private'],
      `${name}-serve.log`,
      render ? renderEnv() : {},
    );
    stack.children.push(serve.child);
    const announced = JSON.parse(serve.line);
    stack.baseUrl = announced.listening;
    if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(stack.baseUrl || '')) {
      throw new Error(`sitescan serve announced ${serve.line}, not a loopback address`);
    }
  } catch (e) {
    await stopStack(stack);
    throw e;
  }
  return stack;
}

/** Stops the servers (newest first) and removes the data directory. */
export async function stopStack(stack) {
  for (const child of [...stack.children].reverse()) {
    await stop(child);
  }
  stack.children = [];
  rmSync(stack.dataDir, { recursive: true, force: true });
}

/**
 * A fresh browser: its own temporary profile (`--user-data-dir`), removed by
 * `close()`. The clipboard permissions let the key page's copy button work
 * and be checked.
 */
export async function launchBrowser() {
  const profile = mkdtempSync(join(tmpdir(), 'sitescan-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
    timeout: 60_000,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Watches one page: records every document the main frame shows, every
 * answer of 400 or more (`failed`, as `STATUS /path?query`), every other
 * console error and uncaught exception (a CSP violation is a console error),
 * and writes numbered full-page screenshots `<prefix>-NN-<name>.png`.
 * `unshot()` lists the documents visited but never photographed.
 */
export function watch(page, prefix) {
  mkdirSync(ARTIFACTS, { recursive: true });
  // The last run's screenshots of this prefix go: the directory shows one run.
  for (const f of readdirSync(ARTIFACTS)) {
    if (f.startsWith(`${prefix}-`) && f.endsWith('.png')) {
      rmSync(join(ARTIFACTS, f));
    }
  }
  const visited = [];
  const shotUrls = new Set();
  const errors = [];
  const failed = [];
  let n = 0;
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) {
      visited.push(frame.url());
    }
  });
  page.on('response', (resp) => {
    if (resp.status() >= 400) {
      const u = new URL(resp.url());
      failed.push(`${resp.status()} ${u.pathname}${u.search}`);
    }
  });
  page.on('console', (msg) => {
    // A failed load is listed (with its URL) by the response handler above.
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) {
      errors.push(`console: ${msg.text()}`);
    }
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  return {
    errors,
    failed,
    visited,
    /** A screenshot; `{ fullPage: false }` keeps to the viewport. */
    async shot(name, { fullPage = true } = {}) {
      n += 1;
      const file = join(ARTIFACTS, `${prefix}-${String(n).padStart(2, '0')}-${name}.png`);
      await page.screenshot({ path: file, fullPage });
      shotUrls.add(page.url());
      return file;
    },
    unshot() {
      return [...new Set(visited)].filter((u) => !shotUrls.has(u));
    },
  };
}

/** The path and query of the page's URL (`/sites/site_...`). */
export function pathOf(page) {
  const u = new URL(page.url());
  return u.pathname + u.search;
}

/** The password every test user gets (the policy wants at least 12 characters). */
export const PASSWORD = 'correct horse battery staple';

/**
 * Opens the admin CLI's one-time link on the test server and sets
 * [`PASSWORD`]; ends on the sign-in page. Screenshots both pages. `token`
 * defaults to the stack's first user's.
 */
export async function setPassword(page, stack, shots, token = stack.passwordToken) {
  await page.goto(`${stack.baseUrl}/set-password?token=${token}`);
  await shots.shot('set-password');
  await page.fill('#password', PASSWORD);
  await page.fill('#confirm', PASSWORD);
  await page.click('#set-password');
  await page.waitForURL(`${stack.baseUrl}/login?password=set`);
}

/**
 * The focused element as the test compares it: `tag#id "text"` (id and text
 * when present), plus what makes its focus indicator visible.
 */
export async function focusState(page) {
  return page.evaluate(() => {
    const parse = (c) => (c.match(/[\d.]+/g) || []).map(Number);
    const luminance = ([r, g, b]) => {
      const lin = (v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    const opaque = (c) => {
      const p = parse(c);
      return p.length >= 3 && (p.length < 4 || p[3] > 0);
    };
    const el = document.activeElement;
    const cs = getComputedStyle(el);
    // The outline is drawn outside the element: its backdrop is the first
    // opaque background among the ancestors.
    let backdrop = 'rgb(255, 255, 255)';
    for (let n = el.parentElement; n; n = n.parentElement) {
      const bg = getComputedStyle(n).backgroundColor;
      if (opaque(bg)) {
        backdrop = bg;
        break;
      }
    }
    const [l1, l2] = [luminance(parse(cs.outlineColor)), luminance(parse(backdrop))].sort((a, b) => b - a);
    const rect = el.getBoundingClientRect();
    const text = (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT')
      ? ''
      : (el.innerText || '').trim();
    return {
      what: `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${text ? ` "${text}"` : ''}`,
      focusVisible: el.matches(':focus-visible'),
      outline: cs.outlineStyle === 'none' ? 0 : parseFloat(cs.outlineWidth),
      contrast: Math.round(((l1 + 0.05) / (l2 + 0.05)) * 100) / 100,
      onScreen: rect.width > 0 && rect.height > 0 && rect.left >= 0 && rect.top >= 0
        && rect.right <= window.innerWidth && rect.bottom <= window.innerHeight,
    };
  });
}

// The command line itself: help, version, dispatch and the "did you mean"
// hint, with their exit statuses.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { runCli } from './helpers.mjs';

test('--help lists every command and exits 0', async () => {
  const r = await runCli(['--help']);
  assert.equal(r.code, 0);
  for (const cmd of ['run', 'runs', 'show', 'export', 'sim'])
    assert.match(r.stdout, new RegExp(`^  ${cmd} `, 'm'), `${cmd} listed`);
});

test('--version and -V print the version', async () => {
  for (const flag of ['--version', '-V']) {
    const r = await runCli([flag]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^truecost \d+\.\d+\.\d+/);
  }
});

test('help CMD and CMD --help print the same usage', async () => {
  for (const cmd of ['run', 'runs', 'show', 'export', 'sim']) {
    const a = await runCli(['help', cmd]);
    const b = await runCli([cmd, '--help']);
    assert.equal(a.code, 0);
    assert.equal(b.code, 0);
    assert.match(a.stdout, new RegExp(`^Usage: truecost ${cmd}`));
    assert.equal(a.stdout, b.stdout);
  }
});

test('an unknown command gets a "did you mean" hint and exit 1', async () => {
  const r = await runCli(['rnu']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^truecost: unknown command 'rnu'; did you mean 'run'\?/);
  const far = await runCli(['frobnicate']);
  assert.equal(far.code, 1);
  assert.match(far.stderr, /^truecost: unknown command 'frobnicate'\n/);
  const h = await runCli(['help', 'expotr']);
  assert.equal(h.code, 1);
  assert.match(h.stderr, /did you mean 'export'/);
});

test('no command: usage on stderr, exit 1; an unknown global option: exit 1', async () => {
  const r = await runCli([]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^Usage: truecost COMMAND/);
  const o = await runCli(['--bogus']);
  assert.equal(o.code, 1);
  assert.match(o.stderr, /^truecost: unknown option '--bogus'/);
});

// What each number means, once: `help method` defines the figures in the
// terminal, and the summaries of run, sweep and frontier end by pointing to
// it and to the section of docs/method.md that defines theirs.
test('help method defines the figures; run, sweep and frontier point to it and to docs/method.md', async (t) => {
  const { readFileSync } = await import('node:fs');
  const path = (await import('node:path')).default;
  const { REPO_ROOT, testScope } = await import('./helpers.mjs');
  const r = await runCli(['help', 'method']);
  assert.equal(r.code, 0, r.stderr);
  for (const term of ['TTFT', 'ITL', 'TPOT', 'interactivity', 'window', 'goodput', 'frontier', 'Cost per million output tokens'])
    assert.match(r.stdout, new RegExp(`^\\s*${term}\\b`, 'm'), `help method defines ${term}`);
  assert.match((await runCli(['--help'])).stdout, /^  help method /m);
  assert.equal((await runCli(['help', 'method', 'x'])).code, 1);

  const headings = readFileSync(path.join(REPO_ROOT, 'docs', 'method.md'), 'utf8').match(/^#+ .*$/gm).map((h) => h.replace(/^#+ /, ''));
  const pointer = (out) => {
    const m = out.trimEnd().split('\n').at(-1).match(/^Definitions: 'truecost help method'; docs\/method\.md, "(.+)"$/);
    assert.ok(m, `the last line points to the definitions:\n${out}`);
    assert.ok(headings.includes(m[1]), `docs/method.md has a section "${m[1]}"`);
    return m[1];
  };
  const sc = testScope(t, 'truecost-method-');
  const db = path.join(sc.dir(), 'db');
  const sims = [await sc.sim(['--ttft-ms', '1', '--decode-tps', '2000']), await sc.sim(['--ttft-ms', '1', '--decode-tps', '1000'])];
  const common = ['-n', '4', '--max-tokens', '8', '--warmup', '0', '--telemetry', 'none', '--no-progress', '--db', db];
  const run = await runCli(['run', sims[0].url, ...common, '--label', 'one']);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(pointer(run.stdout), 'The figures of a run');
  for (const [i, label] of [[0, 'sa'], [1, 'sb']]) {
    const sw = await runCli(['sweep', sims[i].url, '-c', '1,2', ...common, '--label', label], { timeoutMs: 60_000 });
    assert.equal(sw.code, 0, sw.stderr);
    assert.equal(pointer(sw.stdout), 'The steady-state window');
  }
  const fr = await runCli(['frontier', 'sa', 'sb', '--db', db, '--resamples', '1000', '--profile', path.join(REPO_ROOT, 'profiles', 'rtx4090-workstation.ini')]);
  assert.equal(fr.code, 0, fr.stderr);
  assert.equal(pointer(fr.stdout), 'The frontier');
});

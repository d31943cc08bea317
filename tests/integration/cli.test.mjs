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

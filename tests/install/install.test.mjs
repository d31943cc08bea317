// `make install`'s parts on this build tree: `cmake --install BUILD --prefix
// /usr` into a DESTDIR (what `make install PREFIX=/usr DESTDIR=...` runs,
// without rebuilding), then the installed binary runs, `man -l` renders the
// man page and it names every subcommand, and the bash completion completes
// subcommands, each subcommand's options (those of its --help) and files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILD_DIR, SOURCE_DIR, run, subcommands, helpOptions } from './helpers.mjs';

let dest;
const prefix = '/usr';
const at = (rel) => join(dest, prefix, rel);

before(() => {
  dest = mkdtempSync(join(tmpdir(), 'truecost-install-'));
  const r = run('cmake', ['--install', BUILD_DIR, '--prefix', prefix],
                { env: { ...process.env, DESTDIR: dest } });
  assert.equal(r.status, 0, `cmake --install failed:\n${r.stdout}${r.stderr}`);
});

after(() => rmSync(dest, { recursive: true, force: true }));

test('installs the binary, the man page and the completion under DESTDIR/PREFIX', () => {
  for (const rel of ['bin/truecost', 'share/man/man1/truecost.1',
                     'share/bash-completion/completions/truecost'])
    assert.ok(existsSync(at(rel)), `${rel} not installed under ${dest}${prefix}`);
  assert.ok(statSync(at('bin/truecost')).mode & 0o111, 'the binary is not executable');
});

test('the installed binary runs', () => {
  const r = run(at('bin/truecost'), ['--version']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^truecost \d+\.\d+\.\d+/);
});

function man() {
  // MAN_DISABLE_SECCOMP: man-db's sandbox fails in some containers.
  const r = run('man', ['-l', at('share/man/man1/truecost.1')], {
    env: { ...process.env, MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat', MAN_KEEP_FORMATTING: '',
           MAN_DISABLE_SECCOMP: '1', LC_ALL: 'C.UTF-8' },
  });
  return r;
}

test('man -l renders the man page without warnings', () => {
  let r;
  try {
    r = man();
  } catch (e) {
    assert.fail(`${e.message}: install man-db (scripts/deps.sh installs it)`);
  }
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /warning|error/i);
  for (const section of ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'COMMANDS', 'EXIT STATUS', 'FILES',
                         'ENVIRONMENT', 'SEE ALSO'])
    assert.match(r.stdout, new RegExp(`^${section}$`, 'm'), `no ${section} section`);
  // groff itself, all warnings on: the page is well-formed roff.
  const g = run('groff', ['-man', '-Tutf8', '-ww', '-z', at('share/man/man1/truecost.1')]);
  assert.equal(g.status, 0, g.stderr);
  assert.equal(g.stderr, '', `groff warns:\n${g.stderr}`);
});

test('the man page names every subcommand, with its usage and exit status', () => {
  const text = man().stdout;
  const synopsis = text.split(/^DESCRIPTION$/m)[0];
  const commands = text.split(/^COMMANDS$/m)[1].split(/^[A-Z][A-Z ]+$/m)[0];
  for (const cmd of subcommands()) {
    assert.match(synopsis, new RegExp(`^\\s+truecost ${cmd}\\b`, 'm'), `${cmd} not in SYNOPSIS`);
    assert.match(commands, new RegExp(`^ {3}${cmd} — `, 'm'), `${cmd} has no section in COMMANDS`);
  }
});

// The completion, sourced in bash: COMPREPLY for the words given, the last
// one being completed.
function complete(...words) {
  const script = [
    `source ${JSON.stringify(at('share/bash-completion/completions/truecost'))}`,
    'COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()',
    '_truecost; printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const r = run('bash', ['-c', script, 'bash', 'truecost', ...words], { cwd: SOURCE_DIR });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  return r.stdout.split('\n').filter(Boolean);
}

test('the completion and the man page\'s command list are the binary\'s own', () => {
  const script = run(at('bin/truecost'), ['help', '--completion']);
  assert.equal(script.status, 0, script.stderr);
  assert.equal(readFileSync(at('share/bash-completion/completions/truecost'), 'utf8'), script.stdout);
  const list = run(at('bin/truecost'), ['help', '--list']);
  assert.equal(list.status, 0, list.stderr);
  assert.deepEqual(list.stdout.trim().split('\n').map((l) => l.split('\t')[0]), subcommands());
  const opts = run(at('bin/truecost'), ['help', '--options', 'cost']);
  assert.match(opts.stdout, /^--profile\tfile$/m);
  assert.match(opts.stdout, /^--json\tflag$/m);
  assert.equal(run(at('bin/truecost'), ['help', '--options', 'nosuch']).status, 1);
});

test('the completion completes subcommands', () => {
  assert.deepEqual(complete('com'), ['compare']);
  assert.deepEqual(complete('ro'), ['roofline']);
  const all = complete('');
  for (const cmd of subcommands()) {
    assert.ok(all.includes(cmd), `${cmd} not offered`);
    assert.ok(complete(cmd.slice(0, 3)).includes(cmd), `${cmd.slice(0, 3)} does not give ${cmd}`);
  }
  assert.deepEqual(complete('help', 'lo'), ['lockin']);
  assert.deepEqual(complete('--ver'), ['--version']);
});

test('the completion completes each subcommand\'s options, as its --help lists them', () => {
  assert.deepEqual(complete('cost', '--pro'), ['--profile']);
  assert.deepEqual(complete('compare', 'nv', 'amd', '--cl'), ['--claim']);
  for (const cmd of subcommands()) {
    const offered = new Set(complete(cmd, '-'));
    const listed = helpOptions(cmd).filter((o) => o !== '-h');
    for (const opt of listed)
      assert.ok(offered.has(opt), `truecost ${cmd} ${opt}: in --help, not in the completion`);
    for (const opt of offered)
      assert.ok(listed.includes(opt) || ['--help', '--output'].includes(opt),
                `truecost ${cmd} ${opt}: in the completion, not in --help`);
  }
});

test('the completion completes file names and option values', () => {
  assert.deepEqual(complete('cost', '--profile', 'profiles/h100'), ['profiles/h100-cloud-hourly.ini']);
  assert.deepEqual(complete('cost', '--profile', '=', 'profiles/h100'),
                   ['profiles/h100-cloud-hourly.ini']);
  assert.ok(complete('lockin', 'examples/assessment-').includes('examples/assessment-lora-8x24gb.ini'));
  assert.deepEqual(complete('export', '1', '--what', 'ch'), ['chunks']);
  assert.deepEqual(complete('run', '--api', 'openai-'), ['openai-chat']);
  assert.deepEqual(complete('run', '--model', ''), []);
});

// The docs do not drift from the program: README.md stays short, every
// subcommand of `truecost --help` has its page in docs/commands/ (linked from
// the README), the README's layer arrows are those of CMakeLists.txt, every
// relative link of README.md and docs/ resolves, and the man page generator
// reads them all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';
import { BIN, SOURCE_DIR, helpOptions, run, subcommands } from './helpers.mjs';

const read = (rel) => readFileSync(join(SOURCE_DIR, rel), 'utf8');

function markdownFiles() {
  const out = ['README.md'];
  const walk = (rel) => {
    for (const e of readdirSync(join(SOURCE_DIR, rel), { withFileTypes: true })) {
      const p = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) out.push(p);
    }
  };
  walk('docs');
  return out;
}

test('README.md stays under 400 lines', () => {
  const lines = read('README.md').split('\n').length - 1;
  assert.ok(lines < 400, `README.md has ${lines} lines: move reference text to docs/`);
});

// The CLI turns argv into each command's options and calls app/ (the
// commands' work): it stays small, and builds no JSON of its own.
test('src/cli stays thin: under 3,000 lines, no json_ call', () => {
  const dir = join(SOURCE_DIR, 'src/cli');
  let lines = 0;
  for (const f of readdirSync(dir).filter((n) => /\.[ch]$/.test(n))) {
    const text = readFileSync(join(dir, f), 'utf8');
    lines += text.split('\n').length - 1;
    const call = text.match(/\bjson_[a-z_]+\s*\(/);
    assert.equal(call, null, `src/cli/${f} calls ${call && call[0]}: build the document in report/, print it with tc_app_emit_json`);
  }
  assert.ok(lines < 3000, `src/cli is ${lines} lines: move a command's work to src/app/app_<name>.c`);
});

test('every subcommand has its page in docs/commands/, linked from the README', () => {
  const readme = read('README.md');
  const index = read('docs/commands/README.md');
  const cmds = subcommands();
  assert.ok(cmds.length >= 14, `truecost --help lists ${cmds.length} commands`);
  for (const cmd of cmds) {
    const rel = `docs/commands/${cmd}.md`;
    assert.ok(existsSync(join(SOURCE_DIR, rel)), `${rel} is missing`);
    const page = read(rel);
    assert.match(page, new RegExp(`^# truecost ${cmd} — `), `${rel}: title "# truecost ${cmd} — ..."`);
    assert.match(page, /^## Exit status$/m, `${rel} has no "## Exit status"`);
    assert.ok(readme.includes(`(docs/commands/${cmd}.md)`), `README.md does not link ${rel}`);
    assert.ok(index.includes(`(${cmd}.md)`), `docs/commands/README.md does not link ${cmd}.md`);
    assert.ok(existsSync(join(SOURCE_DIR, `docs/help/${cmd}.txt`)), `docs/help/${cmd}.txt (its --help) is missing`);
  }
  const pages = readdirSync(join(SOURCE_DIR, 'docs/commands')).filter((f) => f !== 'README.md');
  for (const f of pages)
    assert.ok(cmds.includes(f.replace(/\.md$/, '')), `docs/commands/${f}: no such subcommand`);
});

// An option several commands share is described once (src/core/tc_usage_expand.c):
// every --help that lists it in its options says the same.
test('shared options read the same in every --help', () => {
  const shared = [
    [/^ {2}--db PATH\s/, 'the results database: an SQLite file or a PostgreSQL'],
    [/^ {2}--sysfs-root DIR\s/, 'read sysfs from DIR instead of /sys'],
    [/^ {2}--profile FILE\s/, 'the cost profile of both sides'],
    [/^ {2}--seed S\s+the bootstrap/, "the bootstrap's seed (default 20261129)"],
  ];
  for (const cmd of subcommands()) {
    const text = run(BIN, [cmd, '--help']).stdout;
    assert.doesNotMatch(text, /(^| )@[a-z]/m, `truecost ${cmd} --help: a shared part not expanded`);
    const lines = text.split('\n');
    for (const [re, words] of shared)
      for (const [k, l] of lines.entries())
        if (re.test(l))
          assert.ok((l + ' ' + (lines[k + 1] ?? '')).replace(/\s+/g, ' ').includes(words),
                    `truecost ${cmd} --help: ${l.trim()} does not say "${words}"`);
  }
});

test('the contributor guide\'s layer arrows are those at the top of CMakeLists.txt', () => {
  const cmake = read('CMakeLists.txt').split('\n');
  const start = cmake.findIndex((l) => /^# The layers/.test(l));
  assert.ok(start >= 0, 'CMakeLists.txt: no "# The layers" comment');
  const arrows = [];
  for (let k = start; k < cmake.length && cmake[k].startsWith('#'); k++)
    if (/^#\s{2,}\S.*(->|\(nothing\))/.test(cmake[k])) arrows.push(cmake[k].replace(/^#\s+/, '').trimEnd());
  assert.ok(arrows.length >= 6, `found ${arrows.length} arrow lines in CMakeLists.txt`);
  const guide = read('docs/contributing.md').split('\n').map((l) => l.trim());
  for (const a of arrows)
    assert.ok(guide.includes(a), `docs/contributing.md lacks the arrow line:\n  ${a}`);
});

// GitHub's anchor of a heading.
function slug(heading) {
  return heading.toLowerCase().replace(/[`*]/g, '').replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

test('every relative link in README.md and docs/ resolves, anchors included', () => {
  const anchors = new Map();
  const files = markdownFiles();
  for (const rel of files) {
    const text = read(rel).replace(/```[\s\S]*?```/g, '');
    anchors.set(resolve(SOURCE_DIR, rel),
                new Set([...text.matchAll(/^#+\s+(.*)$/gm)].map((m) => slug(m[1]))));
  }
  for (const rel of files) {
    const text = read(rel).replace(/```[\s\S]*?```/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z]+:/.test(target)) continue; // https: and the like
      const [path, anchor] = target.split('#');
      const file = path ? resolve(SOURCE_DIR, dirname(rel), path) : resolve(SOURCE_DIR, rel);
      assert.ok(existsSync(file), `${rel}: link to ${target}: no such file`);
      if (anchor && file.endsWith('.md'))
        assert.ok(anchors.get(file)?.has(anchor), `${rel}: link to ${target}: no such heading`);
    }
  }
});

test('the man page generator reads the docs', () => {
  const r = run(process.execPath, [join(SOURCE_DIR, 'scripts/man.mjs'), '--root', SOURCE_DIR, '--bin', BIN,
                                   '--version', 'test', '--date', '2000-01-01']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^\.TH TRUECOST 1 "2000-01-01" "truecost test"/m);
  assert.doesNotMatch(r.stdout, /[^\x00-\x7f]/, 'the page is ASCII (non-ASCII as \\[uXXXX])');
});

// A command's page and its --help name the same options (issue 31): every
// option of the page's usage block is one --help knows, and every option
// of --help is in the usage block (a short and a long form given together,
// "-n, --requests N", count as one; "[every option of run]" brings run's,
// as "[RUN OPTIONS]" does in --help; -h/--help is every command's).
test('every page\'s usage block and its command\'s --help name the same options', () => {
  const OPT = /(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])/g;
  const aliases = (cmd) => {
    const pairs = new Map();
    for (const m of run(BIN, [cmd, '--help']).stdout.matchAll(/^\s+(-[a-zA-Z]), (--[a-z][a-z0-9-]*)/gm)) {
      pairs.set(m[1], m[2]);
      pairs.set(m[2], m[1]);
    }
    return pairs;
  };
  const problems = [];
  for (const cmd of subcommands()) {
    const rel = `docs/commands/${cmd}.md`;
    const usage = read(rel).match(/^```\n([\s\S]*?)^```/m)?.[1];
    assert.ok(usage?.includes(`truecost ${cmd}`), `${rel}: the first fenced block is not its usage`);
    const help = helpOptions(cmd).filter((o) => o !== '-h' && o !== '--help');
    const takesRun = run(BIN, [cmd, '--help']).stdout.includes('[RUN OPTIONS]'); // sweep, soak
    const known = new Set([...help, ...(takesRun ? helpOptions('run') : [])]);
    const shown = new Set([...usage.matchAll(OPT)].map((m) => m[1]));
    for (const base of usage.matchAll(/every option of ([a-z]+)/g))
      for (const o of helpOptions(base[1])) shown.add(o);
    for (const o of shown)
      if (!known.has(o) && o !== '-h' && o !== '--help')
        problems.push(`${rel}: the usage names ${o}, which 'truecost ${cmd} --help' does not`);
    const alias = aliases(cmd);
    for (const o of help)
      if (!shown.has(o) && !shown.has(alias.get(o)))
        problems.push(`${rel}: the usage lacks ${o} ('truecost ${cmd} --help' has it)`);
  }
  assert.deepEqual(problems, []);
});

// The formats of profiles and assessments are in docs/, not in a README
// section (issue 31): the help texts and the shipped example files name
// pages that exist, and no README.
test('help texts, shipped profiles and assessments point to pages that exist', () => {
  const files = [
    ...readdirSync(join(SOURCE_DIR, 'docs/help')).map((f) => `docs/help/${f}`),
    ...readdirSync(join(SOURCE_DIR, 'profiles')).filter((f) => f.endsWith('.ini')).map((f) => `profiles/${f}`),
    ...readdirSync(join(SOURCE_DIR, 'examples')).filter((f) => /^assessment-.*\.ini$/.test(f))
      .map((f) => `examples/${f}`),
  ];
  const problems = [];
  for (const rel of files) {
    const text = read(rel);
    if (/README/.test(text)) problems.push(`${rel}: points to a README; name the page in docs/ instead`);
    for (const m of text.matchAll(/\bdocs\/[\w/.-]*\w\.md\b/g))
      if (!existsSync(join(SOURCE_DIR, m[0]))) problems.push(`${rel}: ${m[0]}: no such page`);
    if (/^(profiles|examples)\//.test(rel) && !/Format and units: docs\/\w+\.md/.test(text))
      problems.push(`${rel}: no "Format and units: docs/PAGE.md" line`);
  }
  assert.deepEqual(problems, []);
});

// roofline.md quotes the readings as the program prints them (issue 31):
// each reading its table quotes is a string of the binary, word for word.
test('roofline.md quotes the readings the program prints', () => {
  const page = read('docs/commands/roofline.md');
  const quoted = [...page.matchAll(/^\| [^|]+ \| `([^`]+)` \|$/gm)].map((m) => m[1]);
  assert.ok(quoted.length >= 5, `roofline.md quotes ${quoted.length} readings`);
  const binary = readFileSync(BIN).toString('latin1');
  for (const q of quoted) assert.ok(binary.includes(q), `roofline.md quotes "${q}", which truecost never prints`);
});

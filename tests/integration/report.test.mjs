// truecost report (issue 16) opened in a real browser: Debian's chromium,
// driven headless by npm puppeteer-core from tests/node (no browser
// download). The report of two simulated 10-point sweeps must load with no
// console error and no request but the file itself, every chart an SVG
// with drawn lines and a title, the summary's verdict that of
// `compare --json` and its decision that of `decide --json`, its content there with JavaScript off, and the file
// under 2 MB. A screenshot goes to build/report.png.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { before, test } from 'node:test';

import { BIN, REPO_ROOT, expectExit, runCli, startSim, tempDir } from './helpers.mjs';

const PROFILE = path.join(REPO_ROOT, 'profiles', 'rtx4090-workstation.ini');
const ASSESSMENT = path.join(REPO_ROOT, 'examples', 'assessment-fp16-inference.ini');
const CHROMIUM = '/usr/bin/chromium';
const FAKE = process.env.TC_FAKE_LIB_DIR ?? path.resolve('build/tests/fake');
const REQUIRED = process.env.TC_REQUIRE_NPM_CLIENTS === '1';
const NODE_DIR = path.join(REPO_ROOT, 'tests', 'node');

let puppeteer = null;
let skip = false;
try {
  puppeteer = createRequire(path.join(NODE_DIR, 'package.json'))('puppeteer-core');
} catch (e) {
  if (REQUIRED) throw new Error(`cannot load puppeteer-core from ${NODE_DIR} (run \`npm ci\` there): ${e.message}`);
  skip = 'puppeteer-core is missing: run `npm ci` in tests/node';
}
if (!skip && !existsSync(CHROMIUM)) {
  if (REQUIRED) throw new Error(`${CHROMIUM} is missing: run scripts/deps.sh (it installs chromium)`);
  skip = `${CHROMIUM} is missing: run scripts/deps.sh`;
}

let dir, db, gaps;
before(async () => {
  dir = tempDir();
  db = path.join(dir, 'db');
  const fast = ['--ttft-ms', '1', '--prefill-tps', '100000'];
  const sims = [
    await startSim([...fast, '--decode-tps', '400', '--max-batch', '8']),
    await startSim([...fast, '--decode-tps', '200', '--max-batch', '16']),
  ];
  try {
    // Each on the fake NVML at its own power, for the power timeline and
    // the energy charts.
    const sweep = (sim, c, label, mw) => runCli(['sweep', sim.url, '--db', db, '-c', c, '-n', '16', '--max-tokens', '40',
      '--warmup', '0', '--label', label, '--telemetry', 'nvml', '--nvml-lib', path.join(FAKE, 'libfake_nvml.so'),
      '--sample-ms', '20', '--idle-s', '0', '--no-progress', '--json'],
    { timeoutMs: 120_000, env: { FAKE_NVML_ENERGY_RATE_MW: mw } });
    // Side by side, each on its own simulator.
    const sides = [[sims[0], '1,2,3,4,5,6,7,8,10,12', 'A', '300000'],
      [sims[1], '2,4,6,8,10,12,14,16,20,24', 'B', '250000']];
    for (const r of await Promise.all(sides.map((x) => sweep(...x)))) assert.equal(r.code, 0, r.stderr);
    const g = await runCli(['gaps', '--ops', path.join(REPO_ROOT, 'examples', 'ops-fp16-inference.csv'),
      '--support', path.join(REPO_ROOT, 'examples', 'support-rocm-example.csv'), '--json']);
    assert.equal(g.code, 0, g.stderr);
    gaps = path.join(dir, 'gaps.json');
    writeFileSync(gaps, g.stdout);
    // A short soak on B, evidence for the decision (a PASS this short is
    // "not yet measured"; a FAIL on a loaded host is "not met": either way
    // the report must read it as decide does).
    const soak = await runCli(['soak', sims[1].url, '--db', db, '--duration', '6s', '--window', '2s', '-c', '2',
      '--max-tokens', '20', '--telemetry', 'none', '--label', 'S', '--no-progress'], { timeoutMs: 60_000 });
    assert.ok(soak.code === 0 || soak.code === 3, soak.stderr);
  } finally {
    for (const s of sims) await s.stop?.();
  }
});

process.on('exit', () => dir && rmSync(dir, { recursive: true, force: true }));

async function decideVerdict() {
  const r = await runCli(['decide', ASSESSMENT, '--runs', 'A', 'B', '--profile-a', PROFILE, '--profile-b', PROFILE,
    '--gaps', gaps, '--db', db, '--json'], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).verdict;
}

async function compareVerdict() {
  const r = await runCli(['compare', 'A', 'B', '--db', db, '--profile-a', PROFILE, '--profile-b', PROFILE,
    '--claim', '0.9', '--json'], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('the report of two simulated sweeps in chromium: no request, no error, titled charts, the verdict of compare', { skip }, async (t) => {
  const out = path.join(dir, 'report.html');
  const r = await runCli(['report', 'A', 'B', '--db', db, '--profile', PROFILE, '--claim', '0.9', '-o', out,
    '--assessment', ASSESSMENT, '--gaps', gaps], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), out);
  assert.ok(statSync(out).size < 2 * 1024 * 1024, `report of two 10-point sweeps is ${statSync(out).size} bytes`);
  t.diagnostic(`report of two 10-point sweeps with the lock-in: ${statSync(out).size} bytes`);
  const html = readFileSync(out, 'utf8');
  assert.doesNotMatch(html, /<script|<link|@import|url\((?!#)/i, 'nothing to fetch or run');
  // Two sweeps: compare judges the claim on the frontiers at each target.
  const cmp = await compareVerdict();
  const verdict = cmp.claim.overall;

  const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new'] });
  try {
    const page = await browser.newPage();
    const errors = [];
    const requests = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (q) => requests.push(q.url()));
    await page.setViewport({ width: 1200, height: 900 });
    const url = pathToFileURL(out).href;
    await page.goto(url, { waitUntil: 'load' });
    assert.deepEqual(errors, []);
    assert.deepEqual(requests, [url], 'the file is the only request');
    // Every other sweep point's timeline is shown on demand: one closed part per point.
    assert.equal(await page.$$eval('details', (ds) => ds.filter((x) => !x.open).length), 2 * 9);
    await page.$$eval('details', (ds) => ds.forEach((x) => { x.open = true; }));
    const charts = await page.$$eval('svg.chart', (svgs) => svgs.map((s) => ({
      title: s.querySelector('title')?.textContent ?? '',
      desc: s.querySelector('desc')?.textContent ?? '',
      drawn: s.querySelectorAll('polyline, path, polygon').length,
      label: s.getAttribute('aria-labelledby'),
      width: s.getBoundingClientRect().width,
      shaded: s.querySelectorAll('[fill="#888888"]').length,
    })));
    assert.ok(charts.length >= 10, `${charts.length} charts`);
    for (const c of charts) {
      assert.ok(c.title.length > 0 && c.desc.length > 0, `chart without a title or text: ${JSON.stringify(c)}`);
      assert.match(c.title, /SIMULATED/, `a simulated chart says so: ${c.title}`);
      assert.ok(c.drawn > 0, `chart '${c.title}' has nothing drawn`);
      assert.ok(c.width > 100, `chart '${c.title}' is not laid out`);
    }
    // The CDFs are drawn from every request (or gap), not from six quantiles.
    const cdfPoints = await page.$$eval('svg.chart', (svgs) => svgs
      .filter((s) => /CDF/.test(s.querySelector('title')?.textContent ?? ''))
      .map((s) => Math.max(...[...s.querySelectorAll('polyline')].map((l) => l.getAttribute('points').trim().split(/\s+/).length))));
    assert.ok(cdfPoints.length >= 6, `${cdfPoints.length} CDF charts`);
    for (const n of cdfPoints) assert.ok(n > 6, `a CDF line of ${n} points`);
    // No figure for people with more than 4 significant digits; the method
    // section (seeds, ports in the commands) is not figures.
    const tooLong = await page.evaluate(() => {
      const method = document.getElementById('method');
      const bad = [];
      for (const e of document.querySelectorAll('td, th, p, figcaption, li')) {
        if (method && (method.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING)) continue;
        // (not a dotted version such as a driver's 550.54.15)
        for (const m of e.textContent.matchAll(/(?<![\w.])-?\d+(?:\.\d+)?(?![\d.]*\.\d)/g)) {
          const n = m[0].replace('-', '');
          let digits = n.replace('.', '').replace(/^0+/, '');
          if (!n.includes('.')) digits = digits.replace(/0+$/, '');
          if (digits.length > 4) bad.push(`${n} in "${e.textContent.slice(0, 80)}"`);
        }
      }
      return bad;
    });
    assert.deepEqual(tooLong, [], 'figures with more than 4 significant digits');
    const titles = charts.map((c) => c.title);
    const timelines = charts.filter((x) => /over the run|in flight|power/.test(x.title));
    assert.ok(timelines.some((c) => c.shaded > 0), 'no timeline shades its steady-state window');
    for (const c of timelines) {
      // n = 16 requests at a concurrency above 16 reach no steady state: the text says so
      if (!/reached no steady-state window/.test(c.desc)) assert.ok(c.shaded > 0, `'${c.title}' shades no steady-state window`);
    }
    for (const want of [/TTFT distribution/, /Inter-token latency histogram/, /output tokens\/s over the run/,
      /TTFT against offered load/, /Pareto frontier/, /Cost per million output tokens against interactivity/,
      /Cost per million output tokens, by term/, /Lock-in cost: Monte Carlo distribution/,
      /Sensitivity of the lock-in cost/, /power/, /Energy per output token/, /per provisioned MW/]) {
      assert.ok(titles.some((t) => want.test(t)), `no chart ${want}`);
    }
    const shown = await page.$$eval('#summary-table tr', (rows) => Object.fromEntries(
      rows.map((tr) => [...tr.children].map((td) => td.textContent))));
    assert.equal(shown.verdict, verdict);
    const fmt = (x) => Number(x.toPrecision(4)).toString(); // 4 significant digits, as printed
    for (const t of cmp.targets) {
      const cell = shown[`cost B/A at ${t.interactivity} tokens/s per user`];
      if (t.ratio) assert.equal(cell, `${fmt(t.ratio.value)} (95% CI ${fmt(t.ratio.ci95[0])} to ${fmt(t.ratio.ci95[1])}), ${t.verdict}`);
      else assert.match(cell, /^n\/a \([AB] does not reach it\)$/);
    }
    assert.equal(shown['throughput B/A'], undefined, 'pooled sweep points are not a comparison');
    assert.equal(shown.decision, await decideVerdict());
    assert.equal(await page.$$eval('#checklist tbody tr', (rows) => rows.length), 7); // the seven items of decide's checklist
    assert.match(await page.$eval('.banner', (e) => e.textContent), /SIMULATED/);
    await page.screenshot({ path: path.join(path.dirname(BIN), 'report.png'), fullPage: true });
    // The dark scheme recolours the page and the charts' axes; print drops the navigation.
    const look = () => page.evaluate(() => ({
      bg: getComputedStyle(document.body).backgroundColor,
      axis: getComputedStyle(document.querySelector('svg.chart [stroke="#1A1A1A"]')).stroke,
      nav: getComputedStyle(document.querySelector('nav')).display,
    }));
    const light = await look();
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    const dark = await look();
    assert.notEqual(dark.bg, light.bg);
    assert.notEqual(dark.axis, light.axis);
    await page.emulateMediaType('print');
    assert.equal((await look()).nav, 'none');

    const noJs = await browser.newPage();
    await noJs.setJavaScriptEnabled(false);
    await noJs.goto(url, { waitUntil: 'load' });
    assert.equal(await noJs.$$eval('svg.chart', (s) => s.length), charts.length);
    assert.equal(await noJs.$eval('#summary-table', (t) => t.rows.length), Object.keys(shown).length);
  } finally {
    await browser.close();
  }
});

test('--format md: the same tables in Markdown, the charts as SVG files beside it', async () => {
  const out = path.join(dir, 'report.md');
  const r = await runCli(['report', 'A', 'B', '--db', db, '--profile', PROFILE, '--claim', '0.9', '-o', out,
    '--format', 'md'], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const md = readFileSync(out, 'utf8');
  const overall = (await compareVerdict()).claim.overall;
  assert.ok(md.includes(`\n| verdict | ${overall} |\n`), `the verdict row is compare's: ${overall}`);
  assert.match(md, /^> \*\*SIMULATED/m);
  const files = [...md.matchAll(/!\[[^\]]*\]\(([^)]+\.svg)\)/g)].map((m) => m[1]);
  assert.ok(files.length >= 10, `${files.length} charts`);
  for (const f of files) {
    const svg = readFileSync(path.join(dir, f), 'utf8');
    assert.match(svg, /^<\?xml[^>]*>\n<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.match(svg, /<title id="[^"]+">[^<]+<\/title>/);
    assert.match(svg, /<polyline/);
  }
  // Each sweep point's distributions, one CDF line a load; goodput needs an SLO.
  for (const side of ['A', 'B']) {
    for (const what of ['TTFT', 'inter-token latency']) {
      const alt = md.match(new RegExp(`!\\[(${what} p50 and p99 \\(ms\\) at each load:[^\\]]*)\\]\\(([^)]+)\\)`, 'g'));
      assert.ok(alt && alt.length === 2, `${what}: a chart of each side's loads`);
    }
    const svg = files.map((f) => readFileSync(path.join(dir, f), 'utf8'))
      .find((x) => x.includes(`${side}: TTFT distribution at each load (CDF)`));
    assert.ok(svg, `${side}'s per-load TTFT chart`);
    assert.ok((svg.match(/<polyline/g) || []).length >= 10, 'a line for each of the 10 loads');
  }
  assert.match(md, /No goodput chart: give --slo/);
  // Every sweep point says its errors (each point's own part, or the charted run's).
  assert.equal((md.match(/^Errors: none of the 16 measured requests of run \d+ failed\.$/gm) || []).length, 20);
  // The ITL histogram counts every gap of the charted run: 16 requests of 40 tokens, 39 gaps each.
  assert.match(md, /!\[A run \d+: 624 gaps in 40 log-spaced bins; the fullest, [\d.]+ to [\d.]+ ms, holds [\d.]+%\. B run \d+: 624 gaps/);
  // The command that made each side's runs, stored with them: one line for a sweep's points.
  for (const side of ['A', 'B']) {
    assert.match(md, new RegExp(`^\\| ${side} \\| 10 from run \\d+ \\| truecost sweep http://127\\.0\\.0\\.1:\\d+ .*--label ${side}\\b.* \\|$`, 'm'));
  }
  assert.match(md, /^This report: truecost report A B --db /m);
  // The operator gap table: every gap (not "native") of the saved table, largest share first.
  const lk = path.join(dir, 'lockin.md');
  const withLockin = await runCli(['report', 'A', 'B', '--db', db, '--profile', PROFILE, '--assessment', ASSESSMENT,
    '--gaps', gaps, '-o', lk, '--format', 'md'], { timeoutMs: 60_000 });
  assert.equal(withLockin.code, 0, withLockin.stderr);
  const lkMd = readFileSync(lk, 'utf8');
  const ops = JSON.parse(readFileSync(gaps, 'utf8')).ops.filter((o) => o.status !== 'native')
    .sort((x, y) => y.share - x.share).slice(0, 40);
  assert.ok(ops.length > 0, 'the example gap table has gaps');
  const rows = [...lkMd.matchAll(/^\| (\S+) \| (missing|fallback|unknown) \| [^|]+ \| ([\d.]+)% \| [^|]+ \|$/gm)];
  assert.deepEqual(rows.map((m) => m[1].replace(/\\_/g, '_')), ops.map((o) => o.name));
  for (const [i, m] of rows.entries()) assert.equal(Number(m[3]), Number((ops[i].share * 100).toFixed(2)));
  const slo = path.join(dir, 'slo.md');
  const withSlo = await runCli(['report', 'A', 'B', '--db', db, '--profile', PROFILE, '--slo', 'ttft=4ms', '-o', slo,
    '--format', 'md'], { timeoutMs: 60_000 });
  assert.equal(withSlo.code, 0, withSlo.stderr);
  const sloMd = readFileSync(slo, 'utf8');
  assert.match(sloMd, /!\[Requests\/s served \(dashed\) and good, meeting every SLO \(solid\)/);
  assert.doesNotMatch(sloMd, /No goodput chart/);
});

// Markdown's escapes undone, to compare with a JSON string.
const unescapeMd = (x) => x.replace(/\\(.)/g, '$1');

test('with --soak, --at and --demand the report decides as decide --json does: one evidence gatherer', async () => {
  const evidence = ['--profile', PROFILE, '--gaps', gaps, '--soak', 'S', '--at', '20', '--demand', '5e9', '--db', db];
  const dc = await runCli(['decide', ASSESSMENT, '--runs', 'A', 'B', ...evidence, '--json'], { timeoutMs: 60_000 });
  assert.equal(dc.code, 0, dc.stderr);
  const want = JSON.parse(dc.stdout);
  // decide read the soak and sized the fleets at --at for --demand.
  assert.match(want.checklist.find((i) => i.id === 'soak').evidence, /^soak (PASS|FAIL|INCOMPLETE) over /);
  const lk = await runCli(['lockin', ASSESSMENT, '--perf', 'A', 'B', ...evidence, '--json'], { timeoutMs: 60_000 });
  assert.equal(lk.code, 0, lk.stderr);
  const source = JSON.parse(lk.stdout).hardware_saving_source;
  // Two sweeps are weighed at their peaks (their points are loads nobody
  // runs together), not at the mean of their points.
  const peak = async (sw) => Math.max(...JSON.parse((await runCli(['show', sw, '--db', db, '--json'])).stdout)
    .points.filter((p) => p.status === 'complete').map((p) => p.output_tokens_per_s));
  const perf = JSON.parse(lk.stdout).performance;
  const ratio = (await peak('B')) / (await peak('A'));
  assert.ok(Math.abs(perf.ratio - ratio) < 1e-9 * ratio, `perf ratio ${perf.ratio}, peaks ${ratio}`);
  assert.match(perf.source, /^sweeps' peaks A vs B \(SIMULATED\)$/);
  assert.match(source, /^fleet capex at 20 tokens\/s per user for 5e\+09 tokens\/month, \d+ vs \d+ boxes/);

  const out = path.join(dir, 'decision.md');
  const r = await runCli(['report', 'A', 'B', '--assessment', ASSESSMENT, ...evidence, '-o', out, '--format', 'md'],
    { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const md = readFileSync(out, 'utf8');
  const lockin = md.slice(md.indexOf('## Lock-in and the decision'), md.indexOf('## Environment'));
  assert.match(lockin, new RegExp(`^Decision: ${want.verdict}\\.$`, 'm'));
  const rows = [...lockin.matchAll(/^\| (?:✓|✗|\?) \| (.+?) \| (ticked|not met|not yet measured) \| (.+) \|$/gm)]
    .map((m) => ({ text: unescapeMd(m[1]), state: m[2], evidence: unescapeMd(m[3]) }));
  assert.deepEqual(rows, want.checklist.map((i) => ({
    text: i.text, state: i.state, evidence: i.evidence + (i.declared ? ' (declared)' : ''),
  })));
  for (const reason of want.reasons) assert.ok(unescapeMd(lockin).includes(`\n${reason}\n`), `the report lacks: ${reason}`);
  assert.ok(unescapeMd(lockin).includes(`from ${source}`), 'the report\'s hardware saving is the fleets\'');
  // The summary says the same decision.
  assert.match(md, new RegExp(`\\| decision \\| ${want.verdict} \\|`));
});

test('one run, no profile: each missing section says what it needs; the default file name', async () => {
  const cwd = tempDir();
  try {
    const r = spawnSync(BIN, ['report', 'A', '--db', db], { cwd, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const out = r.stdout.trim();
    assert.equal(out, 'truecost-report-A.html');
    const html = readFileSync(path.join(cwd, out), 'utf8');
    assert.match(html, /No cost: give --profile FILE/);
    assert.match(html, /No lock-in: give --assessment FILE/);
    assert.match(html, /No frontier: no cost profile/);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('exit statuses: usage 1; a run not found, an unreadable assessment or an unwritable file 2', async () => {
  await expectExit(['report', 'A', '--db', db, '--format', 'pdf'], 1, { stderr: /--format 'pdf': expected html or md/ });
  await expectExit(['report', 'A', '--db', db, '--gaps', 'g.json'], 1, { stderr: /--gaps goes with --assessment/ });
  await expectExit(['report', 'A', 'A', '--db', db, '--profile-a', PROFILE], 1, { stderr: /give both --profile-a and --profile-b, or --profile for both/ });
  await expectExit(['report'], 1);
  await expectExit(['report', 'nosuch', '--db', db, '-o', path.join(dir, 'x.html')], 2, { stderr: /nosuch/ });
  await expectExit(['report', 'A', '--db', db, '--assessment', path.join(dir, 'none.ini'), '-o', path.join(dir, 'x.html')], 2,
    { stderr: /none\.ini/ });
  await expectExit(['report', 'A', '--db', db, '-o', path.join(dir, 'no', 'such', 'x.html')], 2, { stderr: /cannot write/ });
});

test('no output is written over an input; the format follows the name; a Markdown folder is not written over without --force', async () => {
  const sub = tempDir();
  try {
    const store = path.join(sub, 'r.db');
    copyFileSync(db, store);
    const before = readFileSync(store);
    const profile = path.join(sub, 'p.ini');
    copyFileSync(PROFILE, profile);
    const ini = readFileSync(profile, 'utf8');
    // The store, the profile, the assessment and the gap table: each refused, named, and left as it was.
    await expectExit(['report', 'A', '--db', store, '--profile', profile, '-o', store], 1,
      { stderr: new RegExp(`-o ${store} is the same file as --db ${store}, an input: give another output file`) });
    await expectExit(['report', 'A', '--db', store, '--profile', profile, '-o', path.join(sub, '.', 'p.ini')], 1,
      { stderr: /is the same file as --profile-a .*p\.ini, an input/ });
    const assessment = path.join(sub, 'a.ini');
    copyFileSync(ASSESSMENT, assessment);
    await expectExit(['report', 'A', '--db', store, '--assessment', assessment, '--gaps', gaps, '-o', gaps, '--format', 'md'], 1,
      { stderr: /is the same file as --gaps/ });
    assert.deepEqual(readFileSync(store), before, 'the store untouched');
    assert.equal(readFileSync(profile, 'utf8'), ini, 'the profile untouched');
    // -o NAME.md without --format is Markdown; a --format the name contradicts is refused.
    const md = path.join(sub, 'rep.md');
    const r = await runCli(['report', 'A', '--db', store, '--profile', profile, '-o', md], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(readFileSync(md, 'utf8'), /^# /);
    await expectExit(['report', 'A', '--db', store, '-o', path.join(sub, 'x.html'), '--format', 'md'], 1,
      { stderr: /-o .*x\.html is html by its name but --format is md/ });
    // Written again: its own files exist now, so refused without --force.
    await expectExit(['report', 'A', '--db', store, '--profile', profile, '-o', md], 1,
      { stderr: /rep\.md exists: a Markdown report does not write over the files in its folder; give -o another name, or --force/ });
    // A chart file in the way (an SVG of another report named alike) is not written over either.
    const other = path.join(sub, 'other.md');
    writeFileSync(path.join(sub, 'other-1.svg'), 'mine');
    await expectExit(['report', 'A', '--db', store, '--profile', profile, '-o', other], 1, { stderr: /other-1\.svg exists/ });
    assert.equal(readFileSync(path.join(sub, 'other-1.svg'), 'utf8'), 'mine');
    const forced = await runCli(['report', 'A', '--db', store, '--profile', profile, '-o', md, '--force'], { timeoutMs: 60_000 });
    assert.equal(forced.code, 0, forced.stderr);
  } finally {
    rmSync(sub, { recursive: true, force: true });
  }
});

test('one sweep: the summary gives the frontier\'s peak and the knee, and the cost prices the peak, saying so', async () => {
  const out = path.join(dir, 'one-sweep.md');
  const r = await runCli(['report', 'A', '--db', db, '--profile', PROFILE, '--format', 'md', '-o', out], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const md = readFileSync(out, 'utf8');
  const doc = JSON.parse((await runCli(['show', 'A', '--db', db, '--json'])).stdout);
  const peak = doc.points.reduce((a, b) => (b.tokens_per_s_per_gpu > a.tokens_per_s_per_gpu ? b : a));
  const fmt = (x) => Number(x.toPrecision(4)).toString();
  assert.ok(md.includes(`| peak of the frontier | ${fmt(peak.tokens_per_s_per_gpu)} output tokens/s per GPU at ${fmt(peak.interactivity)} tokens/s per user (run ${peak.run_id}, c=${peak.concurrency}) |`), 'the peak row');
  assert.match(md, /^\| knee \| (c=\d+ \(run \d+\): .*|none: goodput never fell and latency p99 never doubled) \|$/m);
  assert.doesNotMatch(md, /first run/);
  // The cost is the peak's own, as `cost RUN` prices that run.
  assert.ok(md.includes(`A is priced at its peak: run ${peak.run_id}, c=${peak.concurrency},`), 'the priced sentence');
  const cost = JSON.parse((await runCli(['cost', String(peak.run_id), '--db', db, '--profile', PROFILE, '--json'])).stdout);
  const row = md.match(/^\| A \([^|]*\) \| [^|]* \| [^|]* \| [^|]* \| ([^|]*) \|/m);
  assert.ok(row, 'a cost row for A');
  assert.equal(row[1].trim(), fmt(cost.cost_per_million_tokens));
});

// make demo's main job with no local server: two simulated platforms swept,
// the frontier's verdict on "A is 5x more cost-efficient than B", and the
// report written, which opens in the browser with no error.
test('make demo without a server: the frontier verdict, then the report, which opens in chromium', { skip }, async (t) => {
  const demoDir = path.join(dir, 'demo');
  mkdirSync(demoDir);
  const started = performance.now();
  const r = spawnSync('bash', [path.join(REPO_ROOT, 'scripts', 'demo.sh'), BIN],
    { env: { ...process.env, DEMO_DIR: demoDir, DEMO_PORTS: '' }, encoding: 'utf8', timeout: 120_000 });
  t.diagnostic(`make demo's job took ${((performance.now() - started) / 1000).toFixed(1)} s`);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /no local inference server answers: two SIMULATED platforms instead/);
  assert.match(r.stdout, /^SIMULATED Cost at equal interactivity: A = demo-a, B = demo-b$/m);
  assert.match(r.stdout, /^Claim "A is 5 times more cost-efficient than B" \(cost B \/ cost A >= 5\): /m);
  const report = r.stdout.match(/4\/4 done: the report is (\S+)/)?.[1];
  assert.equal(report, path.join(demoDir, 'truecost-demo.html'));
  const html = readFileSync(report, 'utf8');
  assert.match(html, /SIMULATED/);
  assert.match(html, /Lock-in and the decision/);
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new'] });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(pathToFileURL(report).href, { waitUntil: 'load' });
    assert.deepEqual(errors, []);
    assert.ok((await page.$$eval('svg.chart', (s) => s.length)) >= 10);
    assert.match(await page.title(), /demo-a \(A\) vs demo-b \(B\)/);
  } finally {
    await browser.close();
  }
  // The simulators are stopped: nothing of the demo's is left listening.
  assert.doesNotMatch(r.stderr, /did not start/);
});

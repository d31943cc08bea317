// truecost soak against the simulator playing a bad server (issue 18):
// a crash and a restart, a decode rate that drifts, a memory leak, and a
// soak killed with -9 and resumed. Short soaks of 5-second windows, run at
// once (they are light), each checked against what the test itself made
// happen or told the simulator.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { REPO_ROOT, expectExit, runCli, spawnTruecost, startSim, tempDir } from './helpers.mjs';

const WINDOW_S = 5;
// 50 tokens at 100 tokens/s: half a second a request, four at a time.
const LOAD = ['-c', '4', '--max-tokens', '50', '--window', `${WINDOW_S}s`, '--telemetry', 'none', '--no-progress', '--json'];
const SIM_FAST_TTFT = ['--ttft-ms', '0', '--prefill-tps', '1000000', '--decode-tps', '100'];
// Where speed drift is not what a test checks: a 30 s soak on a loaded CI
// host can see a few % of noise, which is hundreds of % per hour.
const CALM = ['--max-drift', '1000'];

function scoped(t) {
  const dir = tempDir();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, db: path.join(dir, 'db') };
}

function soakDoc(r) {
  assert.ok(r.stdout.trim().startsWith('{'), `a JSON document; stderr: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

describe('soak', { concurrency: true }, () => {
  test('usage errors name the option and the fix', async () => {
    const url = 'http://127.0.0.1:1';
    await expectExit(['soak', url, '--duration', '90'], 1, { stderr: /--duration '90': expected a duration with its unit/ });
    await expectExit(['soak', url, '--duration', '5s', '--window', '5s'], 1, { stderr: /fewer than 3 windows/ });
    await expectExit(['soak', url, '--chunks', 'some'], 1, { stderr: /--chunks 'some': expected all, sample or none/ });
    await expectExit(['soak', url, '-n', '5'], 1, { stderr: /-n and --repeat belong to 'truecost run'/ });
  });

  test('a crash and a restart: one outage, its downtime within a window of the truth, the restart counted, the run goes on', async (t) => {
    const { db } = scoped(t);
    const sim = await startSim(['--fault', 'crash-after:60', ...SIM_FAST_TTFT], { t });
    const soak = spawnTruecost(['soak', sim.url, '--db', db, '--duration', '25s', '--max-downtime', '1s', ...CALM, ...LOAD], { t, timeoutMs: 90_000 });
    await sim.exited; // the simulated crash
    const crashedAt = performance.now();
    await sleep(3000);
    const again = await startSim(['--listen', `127.0.0.1:${sim.port}`, ...SIM_FAST_TTFT], { t });
    const upAt = performance.now();
    assert.equal(again.port, sim.port);
    const r = await soak.done;
    assert.equal(r.code, 3, `FAIL: downtime over --max-downtime 1s; stderr: ${r.stderr}`);
    const doc = soakDoc(r);
    const truth = (upAt - crashedAt) / 1000;
    assert.equal(doc.verdict.outages, 1, JSON.stringify(doc.outages));
    assert.ok(Math.abs(doc.verdict.downtime_s - truth) <= WINDOW_S, `downtime ${doc.verdict.downtime_s} s, truth ${truth} s`);
    assert.equal(doc.outages[0].refused, true);
    assert.equal(doc.verdict.restarts, 1);
    assert.ok(doc.verdict.reasons.some((x) => /^downtime .*--max-downtime/.test(x)), doc.verdict.reasons.join('; '));
    assert.equal(doc.verdict.reasons.length, 1, doc.verdict.reasons.join('; '));
    // The soak went on: windows after the restart served requests.
    const after = doc.windows.filter((w) => w.start_s > doc.outages[0].end_s);
    assert.ok(after.length >= 2 && after.every((w) => w.requests > 0 && w.errors === 0), JSON.stringify(after));
    // show prints the stored soak, with the same verdict.
    const shown = await runCli(['show', String(doc.soak.run_id), '--db', db]);
    assert.equal(shown.code, 3, shown.stderr);
    assert.match(shown.stdout, /verdict: FAIL/);
    assert.match(shown.stdout, /outages \(first failed request to first success\)/);
    // Evidence: a FAIL, however short, is evidence (one rule for both):
    // lockin's risk from the outages per day (one in 30 s: at most 1),
    // saying so; decide's stability item not met.
    const assessment = path.join(REPO_ROOT, 'examples', 'assessment-lora-8x24gb.ini');
    const id = String(doc.soak.run_id);
    const lk = await runCli(['lockin', assessment, '--soak', id, '--db', db, '--json', '--samples', '1000']);
    assert.equal(lk.code, 0, lk.stderr);
    const lock = JSON.parse(lk.stdout);
    assert.match(lock.risk_source, new RegExp(`^soak run ${id} \\(FAIL\\): 1 outage\\(s\\) in .* per day \\(SIMULATED\\)$`));
    assert.equal(lock.inputs.probability, 1);
    assert.equal(lock.terms.risk_cost, lock.inputs.incident_cost);
    const dc = await runCli(['decide', assessment, '--soak', id, '--db', db, '--json', '--samples', '1000']);
    assert.equal(dc.code, 0, dc.stderr);
    const item = JSON.parse(dc.stdout).checklist.find((i) => i.id === 'soak');
    assert.equal(item.state, 'not met');
    assert.match(item.evidence, /^soak FAIL over .* h \(24 h needed\): 1 outage\(s\), .* 1 restart\(s\), .*; downtime/);
  });

  test('a decode rate that drifts: the throughput trend within 10% of the configured one, FAIL; TPOT grows', async (t) => {
    const { db } = scoped(t);
    // % of --decode-tps per minute: a tenth of the rate over the soak, a
    // slope well above the windows' noise
    const drift = 25;
    const sim = await startSim(['--drift', String(drift), ...SIM_FAST_TTFT], { t });
    // Windows of 3 s over 24 s: eight points for the trend.
    const r = await runCli(['soak', sim.url, '--db', db, '--duration', '24s', ...LOAD, '--window', '3s'],
      { timeoutMs: 90_000 });
    assert.equal(r.code, 3, r.stderr);
    const doc = soakDoc(r);
    const want = -drift * 60; // % per hour of the starting rate
    const got = doc.verdict.trends.throughput_pct_per_h;
    assert.ok(Math.abs(got.value - want) <= 0.1 * Math.abs(want), `throughput ${got.value} %/h, configured ${want}`);
    assert.ok(got.lo <= got.value && got.value <= got.hi);
    assert.ok(doc.verdict.trends.tpot_pct_per_h.value > 0.5 * -want);
    assert.ok(doc.verdict.reasons.some((x) => /^throughput drifts/.test(x)), doc.verdict.reasons.join('; '));
    assert.equal(doc.verdict.outages, 0);
  });

  test('a leaking server is flagged and a steady one is not', async (t) => {
    const { db } = scoped(t);
    const leaky = await startSim(['--leak-kb-per-request', '256', ...SIM_FAST_TTFT], { t });
    const steady = await startSim(SIM_FAST_TTFT, { t });
    const [a, b] = await Promise.all([
      runCli(['soak', leaky.url, '--db', `${db}-leak`, '--duration', '25s', ...CALM, ...LOAD], { timeoutMs: 90_000 }),
      runCli(['soak', steady.url, '--db', `${db}-steady`, '--duration', '25s', ...CALM, ...LOAD], { timeoutMs: 90_000 }),
    ]);
    const leak = soakDoc(a);
    const ok = soakDoc(b);
    assert.equal(a.code, 3, a.stderr);
    assert.ok(leak.windows.every((w) => w.rss_bytes > 0), 'the local server\'s RSS was read');
    assert.ok(leak.verdict.reasons.some((x) => /server's memory \(RSS\) grows/.test(x)), leak.verdict.reasons.join('; '));
    // About 8 requests a second keep 256 KiB each: 7 GiB an hour.
    assert.ok(leak.verdict.trends.rss_mib_per_h.value > 2000, JSON.stringify(leak.verdict.trends));
    assert.equal(b.code, 0, `${b.stderr} ${ok.verdict.reasons.join('; ')}`);
    assert.equal(ok.verdict.pass, true);
    assert.ok(ok.windows.every((w) => w.rss_bytes > 0));
    assert.equal(ok.verdict.outages, 0);
  });

  test('kill -9 and --resume: the soak goes on from its last stored window, losing at most one', async (t) => {
    const { db } = scoped(t);
    const sim = await startSim(SIM_FAST_TTFT, { t });
    const first = spawnTruecost(['soak', sim.url, '--db', db, '--duration', '20s', '--label', 'long', ...CALM, ...LOAD], { t, timeoutMs: 90_000 });
    const t0 = performance.now();
    await sleep(11_500); // two windows closed
    first.kill('SIGKILL');
    const killedAfter = (performance.now() - t0) / 1000;
    await first.done;
    const shownJson = await runCli(['show', 'long', '--db', db, '--json']);
    assert.equal(shownJson.code, 3, 'a soak left unfinished did not pass');
    const before = soakDoc(shownJson);
    assert.equal(before.verdict.outcome, 'INCOMPLETE');
    assert.equal(before.verdict.pass, false);
    assert.equal(before.verdict.complete, false);
    const shown = await runCli(['show', 'long', '--db', db]);
    assert.equal(shown.code, 3);
    assert.match(shown.stdout, /^verdict: INCOMPLETE$/m);
    assert.match(shown.stdout, new RegExp(`unfinished: [\\d.]+s of the planned 20\\.0s measured \\(status running\\) \\(still running, or its process was killed before it could say so\\); resume it with 'truecost soak --resume ${before.soak.run_id}'`));
    // Windows close a second after they end; the one being measured is lost.
    assert.ok(before.windows.length >= Math.floor((killedAfter - 1.5) / WINDOW_S) - 1, `${before.windows.length} windows after ${killedAfter} s`);
    // another load into the same run would read as drift: refused, with
    // the command it started as, and nothing stored
    const other = await runCli(['soak', sim.url, '--db', db, '--resume', 'long', ...LOAD, '-c', '8'], { timeoutMs: 30_000 });
    assert.equal(other.code, 2, other.stderr);
    assert.match(other.stderr, /--resume \d+: not the load it started with \(-c was 4, now 8\): give the same URL and load options; it started as: truecost soak .*--label long/);
    assert.equal(soakDoc(await runCli(['show', 'long', '--db', db, '--json'])).soak.resumes, 0);
    // --resume alone: the URL and load of the command it started as
    const r = await runCli(['soak', '--resume', 'long', '--db', db, '--json'], { timeoutMs: 90_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^truecost: soak --resume long: as it started: truecost soak http:\/\/127\.0\.0\.1:\d+ --db \S+ --duration 20s --label long/m);
    const doc = soakDoc(r);
    assert.equal(doc.soak.run_id, before.soak.run_id);
    assert.equal(doc.soak.resumes, 1);
    assert.deepEqual(doc.windows.map((w) => w.idx), doc.windows.map((_, i) => i), 'no window missing or twice');
    assert.deepEqual(doc.windows.slice(0, before.windows.length), before.windows, 'the stored windows kept');
    for (let i = 1; i < doc.windows.length; i++)
      assert.ok(Math.abs(doc.windows[i].start_s - (doc.windows[i - 1].start_s + doc.windows[i - 1].span_s)) < 1e-6);
    assert.ok(doc.soak.covered_s >= 20 - 1e-6 && doc.soak.covered_s < 20 + WINDOW_S, `covered ${doc.soak.covered_s}`);
    assert.equal(doc.verdict.pass, true, doc.verdict.reasons.join('; '));
  });

  test('a soak stopped by Ctrl-C before its planned duration is INCOMPLETE, not PASS', async (t) => {
    const { db } = scoped(t);
    const sim = await startSim(SIM_FAST_TTFT, { t });
    const soak = spawnTruecost(['soak', sim.url, '--db', db, '--duration', '40s', '--window', '2s', '--label', 'cut', ...CALM,
      '-c', '2', '--max-tokens', '20', '--telemetry', 'none', '--no-progress'], { t, timeoutMs: 60_000 });
    await sleep(5_000);
    soak.kill('SIGINT');
    const r = await soak.done;
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stdout, /^verdict: INCOMPLETE$/m);
    assert.match(r.stdout, /unfinished: [\d.]+s of the planned 40\.0s measured \(status interrupted\); resume it with 'truecost soak --resume \d+'/);
    assert.doesNotMatch(r.stdout, /PASS/);
    const shown = await runCli(['show', 'cut', '--db', db, '--json']);
    assert.equal(shown.code, 3);
    assert.equal(soakDoc(shown).verdict.outcome, 'INCOMPLETE');
    // Not evidence, for lockin and decide alike: the assessment's risk
    // stands (it became 0 from a 13 s soak before), and says why.
    const assessment = path.join(REPO_ROOT, 'examples', 'assessment-lora-8x24gb.ini');
    const lk = await runCli(['lockin', assessment, '--soak', 'cut', '--db', db, '--json', '--samples', '1000']);
    assert.equal(lk.code, 0, lk.stderr);
    const lock = JSON.parse(lk.stdout);
    assert.equal(lock.risk_source, 'assessment');
    assert.equal(lock.inputs.probability, 0.25);
    assert.match(lk.stderr, /soak run \d+: INCOMPLETE over .* h is not evidence yet \(a PASS of 24 h or more, or a FAIL, is\): the risk's probability stays the assessment's; resume it with 'truecost soak --resume'/);
    const dc = await runCli(['decide', assessment, '--soak', 'cut', '--db', db, '--json', '--samples', '1000']);
    assert.equal(dc.code, 0, dc.stderr);
    const item = JSON.parse(dc.stdout).checklist.find((i) => i.id === 'soak');
    assert.equal(item.state, 'not yet measured');
    assert.match(item.evidence, /^soak INCOMPLETE over /);
    // --resume of a run that is not a soak says so (it said "no URL given").
    const plain = await runCli(['run', sim.url, '--db', db, '-n', '1', '--max-tokens', '4', '--label', 'plain',
      '--telemetry', 'none', '--no-progress']);
    assert.equal(plain.code, 0, plain.stderr);
    await expectExit(['soak', '--resume', 'plain', '--db', db], 1,
      { stderr: /soak: --resume plain: run \d+ is no soak; give a run that `truecost soak` made \(see 'truecost runs'\)/ });
    await expectExit(['soak', '--resume', 'nosuch', '--db', db], 2, { stderr: /soak: --resume nosuch: .*nosuch/ });
  });

  test('--resume alone refuses a soak whose URL held a password: it was not stored', async (t) => {
    const { db } = scoped(t);
    const sim = await startSim(SIM_FAST_TTFT, { t });
    const url = sim.url.replace('http://', 'http://tc:hunter2@');
    const first = await runCli(['soak', url, '--db', db, '--duration', '6s', '--window', '2s', '--label', 'pw', ...CALM,
      '-c', '2', '--max-tokens', '20', '--telemetry', 'none', '--no-progress', '--json'], { timeoutMs: 60_000 });
    assert.equal(first.code, 0, first.stderr);
    const r = await runCli(['soak', '--resume', 'pw', '--db', db], { timeoutMs: 30_000 });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /soak: --resume pw: its URL held a password, which is not stored: give the URL and load options again/);
    assert.doesNotMatch(r.stderr + r.stdout, /hunter2/);
  });
});

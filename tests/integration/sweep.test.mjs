// truecost sweep against the simulator, whose timing model makes every
// figure computable by hand (issue 14 part 6): with --decode-tps d and
// --max-batch B, a closed loop at C <= B streams C*d tokens/s at
// interactivity d; past B, d*B at d*B/C.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import { setTimeout as sleep } from 'node:timers/promises';

import { REPO_ROOT, runCli, spawnTruecost, startSim, tempDir } from './helpers.mjs';

const PROFILE = path.join(REPO_ROOT, 'profiles', 'rtx4090-workstation.ini');

function scoped(t) {
  const dir = tempDir();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, db: path.join(dir, 'db') };
}

const D = 400;
const B = 4;
const near = (got, want, what) => assert.ok(Math.abs(got - want) / want < 0.03, `${what}: ${got}, truth ${want}`);

test('a concurrency sweep: throughput and interactivity of every point, the knee at C = B, goodput as the truth says', async (t) => {
  const { dir, db } = scoped(t);
  const truth = path.join(dir, 'truth.jsonl');
  // 100 tokens at 400 tok/s: 250 ms a request; TTFT ~2 ms.
  const sim = await startSim(['--ttft-ms', '2', '--prefill-tps', '100000', '--decode-tps', String(D), '--max-batch', String(B), '--truth', truth], { t });
  // TPOT 2.5 ms up to C = B, 5 ms at 2B: the SLO's 3.5 ms splits them.
  const r = await runCli(['sweep', sim.url, '--db', db, '-c', '1,2,4,8', '-n', '16', '--max-tokens', '100', '--warmup', '0',
    '--slo', 'tpot=3.5ms', '--label', 'sw', '--telemetry', 'none', '--no-progress', '--json'], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.sweep.name, 'sw');
  assert.equal(doc.sweep.simulated, true);
  assert.equal(doc.sweep.offered, 'concurrency');
  assert.equal(doc.sweep.slo, 'tpot=3.5ms');
  assert.deepEqual(doc.points.map((p) => p.concurrency), [1, 2, 4, 8]);
  for (const p of doc.points) {
    const c = p.concurrency;
    assert.equal(p.steady_state, true, `c=${c} reached a steady state`);
    near(p.output_tokens_per_s, Math.min(c, B) * D, `c=${c} throughput`);
    near(p.interactivity, c <= B ? D : (D * B) / c, `c=${c} interactivity`);
    assert.equal(p.tokens_per_s_per_gpu, p.output_tokens_per_s); // one GPU by default
    assert.equal(p.rate, null);
  }
  assert.deepEqual(doc.points.map((p) => p.goodput.attainment), [1, 1, 1, 0]);
  assert.deepEqual(doc.knee && [doc.knee.concurrency, doc.knee.reason], [B, 'goodput falls after it']);
  // Goodput against the truth file: the server's own TPOT per request.
  const lines = readFileSync(truth, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((o) => o.client_seq >= 0);
  assert.equal(lines.length, 4 * 16);
  const serverGood = lines.filter((o) => {
    const c = o.chunks;
    return (c[c.length - 1].mono_ns - c[0].mono_ns) / (o.tokens_sent - 1) / 1e6 <= 3.5;
  }).length;
  assert.equal(serverGood, 3 * 16, 'the truth: every request of the first three points, none of the last');
  // The window of the c=8 point: the 8 first streams all at half speed,
  // from their first token (~2 ms) to the first end of the second round of
  // eight (~1 s).
  const shown = JSON.parse((await runCli(['show', String(doc.points[3].run_id), '--db', db, '--json'])).stdout);
  assert.ok(shown.window.start_s < 0.02, `start ${shown.window.start_s}`);
  near(shown.window.end_s - shown.window.start_s, 1.0, 'c=8 window length');
  // show SWEEP: the same points and knee, as a table too.
  const again = JSON.parse((await runCli(['show', 'sw', '--db', db, '--json'])).stdout);
  assert.deepEqual(again.points, doc.points);
  assert.deepEqual(again.knee, doc.knee);
  const text = await runCli(['show', 'sw', '--db', db]);
  assert.match(text.stdout, /^SIMULATED Sweep 'sw': 4 points, SLO tpot=3\.5ms$/m);
  assert.match(text.stdout, /^\* c=4 /m);
  assert.match(text.stdout, /^Knee \(\*\): c=4, run \d+: goodput falls after it$/m);
});

// The rest two at a time (the sweep above, whose goodput and knee are timed
// against the truth, alone): each drives its own simulator, a light load.
describe('sweep', { concurrency: 2 }, () => {
  test('a rate sweep stops going up when the server saturates, and says why', async (t) => {
    const { db } = scoped(t);
    // One stream at 500 tok/s, 20 tokens: about 25 requests/s at most.
    const sim = await startSim(['--ttft-ms', '2', '--prefill-tps', '100000', '--decode-tps', '500', '--max-batch', '1'], { t });
    const r = await runCli(['sweep', sim.url, '--db', db, '--rates', '10,60,80,100', '-n', '30', '--max-tokens', '20',
      '--warmup', '0', '--label', 'rates', '--telemetry', 'none', '--no-progress', '--json'], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.sweep.offered, 'rate');
    assert.deepEqual(doc.points.map((p) => p.rate), [10, 60, 80], 'stopped after two short points');
    assert.match(doc.sweep.stopped, /under 90% of their offered rate \(saturated\)/);
    assert.match(r.stderr, /sweep: stopped going up: the last two points achieved under 90%/);
    // The 10/s point keeps up with what its Poisson arrivals offered.
    near(doc.points[0].requests_per_s, doc.points[0].arrivals_per_s, 'the 10/s point');
    assert.ok(doc.points[1].requests_per_s < 0.9 * doc.points[1].arrivals_per_s);
  });

  test('sweep usage errors name the fix', async (t) => {
    const { db } = scoped(t);
    const cases = [
      [['-c', '4,2'], /--concurrency '4,2': expected up to 64 ascending whole numbers/],
      [['--rates', '1,x'], /--rates '1,x': expected up to 64 ascending numbers above 0/],
      [['-c', '1,2', '--rates', '1'], /give --concurrency or --rates, not both/],
      [['--rate', '5'], /--rate, --repeat and --shard belong to 'truecost run'/],
      [['--gpus', '0'], /--gpus: 0 is out of range/],
    ];
    for (const [args, want] of cases) {
      const r = await runCli(['sweep', 'http://127.0.0.1:9', '--db', db, ...args]);
      assert.equal(r.code, 1, `${args}: ${r.stderr}`);
      assert.match(r.stderr, want);
    }
  });

  test('--rates auto: a synchronous run, a throughput run, then rates evenly between', async (t) => {
    const { db } = scoped(t);
    // 20 tokens at 500 tok/s: 40 ms a request, ~25 requests/s alone; two
    // streams at full speed: ~50 requests/s.
    const sim = await startSim(['--ttft-ms', '2', '--prefill-tps', '100000', '--decode-tps', '500', '--max-batch', '2'], { t });
    const r = await runCli(['sweep', sim.url, '--db', db, '--rates', 'auto', '--points', '3', '--max-concurrency', '4',
      '-n', '20', '--max-tokens', '20', '--warmup', '0', '--label', 'auto', '--telemetry', 'none', '--no-progress', '--json'], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.sweep.offered, 'rate');
    const rates = doc.points.map((p) => p.rate);
    assert.equal(rates.length, 3);
    const sync = JSON.parse((await runCli(['show', 'auto:synchronous', '--db', db, '--json'])).stdout);
    const max = JSON.parse((await runCli(['show', 'auto:throughput', '--db', db, '--json'])).stdout);
    assert.equal(sync.run.concurrency, 1);
    assert.equal(max.run.concurrency, 4);
    const lo = sync.window.requests_per_s;
    const hi = max.window.requests_per_s;
    // The top rate is the measured capacity: two streams at 500 tok/s of 20
    // tokens a request, 50 requests/s (it read half of it when requests/s
    // counted only the requests that ended in the window).
    near(hi * 20, max.window.output_tokens_per_s, 'the throughput run: req/s x tokens = tok/s');
    assert.ok(hi > 0.9 * 50 && hi <= 50 * 1.02, `capacity ${hi} req/s, truth 50`);
    near(rates[0], lo, 'first rate: the synchronous rate');
    near(rates[2], hi, 'last rate: the throughput run\'s');
    near(rates[1], (lo + hi) / 2, 'evenly between');
    assert.ok(hi > 1.5 * lo, `${hi} vs ${lo}`);
    // The probes are runs of their own, not points of the sweep.
    const shown = JSON.parse((await runCli(['show', 'auto', '--db', db, '--json'])).stdout);
    assert.deepEqual(shown.points.map((p) => p.rate), rates);
  });

  test('requests/s and tokens/s of a window count the same requests, closed and open loop; goodput never above', async (t) => {
    const { db } = scoped(t);
    // The shape, ten times faster: 64 tokens at 1000 tok/s, a batch
    // that slows each stream by 5% per further stream. At c=16 with 32
    // requests the window is about two rounds, and the second round ends
    // just after it: counting completions read half the rate.
    const sim = await startSim(['--ttft-ms', '2', '--prefill-tps', '100000', '--decode-tps', '1000', '--max-batch', '64',
      '--batch-slowdown', '0.05'], { t });
    const common = ['-n', '32', '--max-tokens', '64', '--warmup', '0', '--slo', 'ttft=10s', '--telemetry', 'none', '--no-progress', '--json'];
    const closed = await runCli(['sweep', sim.url, '--db', db, '-c', '1,4,16', '--label', 'closed', ...common], { timeoutMs: 60_000 });
    assert.equal(closed.code, 0, closed.stderr);
    // The rate points with every run option: gamma arrivals with their burstiness too.
    const open = await runCli(['sweep', sim.url, '--db', db, '--rates', '20,60', '--arrival', 'gamma', '--burstiness', '2',
      '--label', 'open', ...common], { timeoutMs: 60_000 });
    assert.equal(open.code, 0, open.stderr);
    const points = [...JSON.parse(closed.stdout).points, ...JSON.parse(open.stdout).points];
    assert.equal(points.length, 5);
    for (const p of points) {
      const what = p.concurrency ? `c=${p.concurrency}` : `${p.rate}/s`;
      assert.equal(p.steady_state, true, `${what} reached a steady state`);
      const rel = Math.abs(p.requests_per_s * 64 - p.output_tokens_per_s) / p.output_tokens_per_s;
      assert.ok(rel < 0.02, `${what}: ${p.requests_per_s} req/s x 64 vs ${p.output_tokens_per_s} tok/s (${(rel * 100).toFixed(2)}%)`);
      // Every request met the SLO: goodput is requests/s, never above it.
      assert.ok(p.goodput.requests_per_s <= p.requests_per_s * (1 + 1e-9), `${what}: goodput ${p.goodput.requests_per_s} > ${p.requests_per_s}`);
      near(p.goodput.requests_per_s, p.requests_per_s, `${what}: goodput of all-good requests`);
    }
    // show SWEEP --slo judges every point again, as report --slo does:
    // TTFT here is a few ms, so 1 ms leaves none good and 10 s all.
    const none = JSON.parse((await runCli(['show', 'closed', '--db', db, '--slo', 'ttft=1ms', '--json'])).stdout);
    assert.equal(none.sweep.slo, 'ttft=1ms');
    for (const p of none.points) assert.equal(p.goodput.requests_per_s, 0);
    const all = JSON.parse((await runCli(['show', 'closed', '--db', db, '--slo', 'ttft=10s', '--json'])).stdout);
    for (const p of all.points) near(p.goodput.requests_per_s, p.requests_per_s, 'every request good');
    // The table names its column's definition.
    const text = await runCli(['show', 'closed', '--db', db]);
    assert.match(text.stdout, /offered\s+win req\/s\s+win tok\/s/);
    assert.match(text.stdout, /win: over the steady-state window, each request counted by its share of tokens in it/);
  });

  test('an interrupted sweep prints its table so far with the cut point marked; show, frontier and report say it and leave it out', async (t) => {
    const { dir, db } = scoped(t);
    // One stream at a time, 1000 tok/s: 60 requests of 50 tokens take 3 s at
    // any concurrency. Ctrl-C once the first point is reported.
    const sim = await startSim(['--ttft-ms', '1', '--prefill-tps', '100000', '--decode-tps', '1000', '--max-batch', '1'], { t });
    const sw = spawnTruecost(['sweep', sim.url, '--db', db, '-c', '1,4,8', '-n', '60', '--max-tokens', '50', '--warmup', '0',
      '--label', 'cut', '--telemetry', 'none', '--no-progress'], { t, timeoutMs: 60_000 });
    for (let i = 0; i < 400 && !/point 1 \(c=1/.test(sw.output().stderr); i++) await sleep(25);
    await sleep(300);
    sw.kill('SIGINT');
    const r = await sw.done;
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stdout, /^SIMULATED Sweep 'cut': 2 points$/m);
    assert.match(r.stdout, /^  c=4 .*\(interrupted: partial, left out\)$/m);
    assert.match(r.stdout, /^Incomplete: c=4 \(run \d+, interrupted\) did not finish; its figures are partial, and the knee, frontier, compare and report leave it out$/m);
    const shown = JSON.parse((await runCli(['show', 'cut', '--db', db, '--json'])).stdout);
    assert.deepEqual(shown.points.map((p) => p.status), ['complete', 'interrupted']);
    assert.match(shown.sweep.incomplete, /^c=4 \(run \d+, interrupted\)$/);
    const fr = await runCli(['frontier', 'cut', '--db', db, '--profile', PROFILE, '--at', '900', '--json'], { timeoutMs: 30_000 });
    assert.equal(fr.code, 0, fr.stderr);
    const doc = JSON.parse(fr.stdout);
    assert.deepEqual(doc.frontier_a.map((p) => p.run_id), [shown.points[0].run_id], 'the cut point is not on the frontier');
    assert.ok(doc.warnings.some((w) => /^A: left out c=4 \(run \d+, interrupted\), which did not finish: its figures are partial$/.test(w)), doc.warnings.join('; '));
    const md = path.join(dir, 'r.md');
    const rep = await runCli(['report', 'cut', '--db', db, '--profile', PROFILE, '--format', 'md', '-o', md], { timeoutMs: 60_000 });
    assert.equal(rep.code, 0, rep.stderr);
    const text = readFileSync(md, 'utf8');
    assert.match(text, /interrupted: partial, left out/);
  });

  test('a server that closes kept-alive connections (llama.cpp\'s way): every point completes, the stale ones retried once on a fresh connection', async (t) => {
    const { db } = scoped(t);
    // Each connection answers one request; the next request on it finds it
    // closed, unanswered. libcurl's own retries take other closed pooled
    // connections and give up ("Connection died, tried 5 times").
    const sim = await startSim(['--ttft-ms', '1', '--prefill-tps', '100000', '--decode-tps', '2000', '--close-after', '1'], { t });
    const r = await runCli(['sweep', sim.url, '--db', db, '-c', '1,2,4,8', '-n', '32', '--max-tokens', '16', '--warmup', '0',
      '--label', 'closing', '--telemetry', 'none', '--no-progress', '--json'], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.deepEqual(doc.points.map((p) => p.concurrency), [1, 2, 4, 8], 'no point stopped the sweep');
    for (const p of doc.points) assert.equal(p.error_rate, 0, `c=${p.concurrency}: no failure counted`);
    // Where libcurl's own retry found no fresh connection, truecost's did.
    const retried = doc.points.map((p) => p.retried_stale_connection);
    assert.ok(retried.reduce((a, b) => a + b) > 0, `retried ${retried}`);
    const most = doc.points[retried.indexOf(Math.max(...retried))];
    const shown = JSON.parse((await runCli(['show', String(most.run_id), '--db', db, '--json'])).stdout);
    assert.equal(shown.requests.failed, 0);
    assert.equal(shown.requests.retried_stale_connection, most.retried_stale_connection);
    const text = await runCli(['show', String(most.run_id), '--db', db]);
    assert.match(text.stdout, /\d+ retried once on a fresh connection: the server had closed the kept-alive one before any response byte \(not failures\)/);
    // A request that received any byte is never retried: a disconnect
    // mid-stream fails as it did.
    const cut = await startSim(['--ttft-ms', '1', '--decode-tps', '2000', '--fault', 'disconnect:1'], { t });
    const one = await runCli(['run', cut.url, '--db', db, '-n', '4', '--max-tokens', '16', '--warmup', '0',
      '--telemetry', 'none', '--no-progress', '--json', '--max-error-rate', '1'], { timeoutMs: 60_000 });
    const d = JSON.parse(one.stdout);
    assert.equal(d.requests.failed, 4);
    assert.equal(d.requests.retried_stale_connection, 0);
  });

  test('the telemetry notice is said once a sweep, not at every point', async (t) => {
    const { db } = scoped(t);
    const sim = await startSim(['--ttft-ms', '1', '--decode-tps', '2000'], { t });
    // Telemetry auto, with every source pointed at nothing: no sensor at all.
    const r = await runCli(['sweep', sim.url, '--db', db, '-c', '1,2,3', '-n', '4', '--max-tokens', '8', '--warmup', '0',
      '--label', 'quiet', '--no-progress', '--sysfs-root', '/nonexistent', '--nvml-lib', '/nonexistent/libnvidia-ml.so.1',
      '--rocm-lib', '/nonexistent/librocm_smi64.so', '--nvidia-smi', '/nonexistent/nvidia-smi', '--rocm-smi', '/nonexistent/rocm-smi'],
    { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal((r.stderr.match(/no GPU or CPU energy sensor/g) || []).length, 1, r.stderr);
    assert.equal((r.stderr.match(/^truecost: point \d/gm) || []).length, 3);
  });
});

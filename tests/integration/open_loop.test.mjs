// `truecost run --rate`: the open loop, checked against the simulator's
// ground truth. The arrival process the server saw must be the one asked
// for: 2,000 arrivals each, their gaps (from the truth file's arrival
// times) against the exponential (Poisson) and the gamma with a
// Kolmogorov-Smirnov test at alpha 0.01, and the constant's spacing; a
// wrong distribution is rejected, so the check can fail. Then latency from
// the intended send time: with one slot and a slow server, requests wait,
// the schedule lag grows, TTFT includes the wait, and the warning says so.
//
// Every test starts its own simulators on 127.0.0.1 and uses its own
// database; everything is stopped in t.after(), every wait is bounded.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { parseCsv, runCli, testScope } from './helpers.mjs';

const ALPHA = 0.01;
const ARRIVALS = 2000;

// ---- the Kolmogorov-Smirnov test, and the distributions it checks -------

/** ln Gamma(x), Lanczos (g = 7, 9 terms), about 1e-15 relative for x > 0. */
function lnGamma(x) {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lnGamma(1 - x);
  const y = x - 1;
  let a = c[0];
  for (let i = 1; i < 9; i++) a += c[i] / (y + i);
  const t = y + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The regularized lower incomplete gamma P(a, x): series below a + 1, else Lentz's continued fraction of Q. */
function gammaP(a, x) {
  if (x <= 0) return 0;
  const front = Math.exp(-x + a * Math.log(x) - lnGamma(a));
  if (x < a + 1) {
    let ap = a;
    let term = 1 / a;
    let sum = term;
    for (let i = 0; i < 1000 && Math.abs(term) > Math.abs(sum) * 1e-15; i++) {
      ap += 1;
      term *= x / ap;
      sum += term;
    }
    return sum * front;
  }
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i <= 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return 1 - front * h;
}

const exponentialCdf = (rate) => (x) => (x <= 0 ? 0 : -Math.expm1(-rate * x));
/** Gamma of shape k and mean 1/rate (scale 1 / (rate k)), as --burstiness k draws its gaps. */
const gammaCdf = (k, rate) => (x) => gammaP(k, x * rate * k);

/** D = sup |F_n - F|. */
function ksStatistic(xs, cdf) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  let d = 0;
  s.forEach((x, i) => {
    const f = cdf(x);
    d = Math.max(d, (i + 1) / n - f, f - i / n);
  });
  return d;
}

/** The Kolmogorov distribution's tail at (sqrt(n) + 0.12 + 0.11 / sqrt(n)) D (Stephens). */
function ksPValue(d, n) {
  const rn = Math.sqrt(n);
  const l = (rn + 0.12 + 0.11 / rn) * d;
  if (l < 0.2) return 1;
  let sum = 0;
  for (let k = 1; k <= 100; k++) sum += (k % 2 ? 1 : -1) * Math.exp(-2 * k * k * l * l);
  return Math.min(1, Math.max(0, 2 * sum));
}

function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

test('the KS pieces agree with known values', () => {
  // closed forms (integer a) and mpmath's gammainc(a, 0, x, regularized=True)
  const near = (a, b, eps, what) => assert.ok(Math.abs(a - b) <= eps, `${what}: ${a}, expected ${b}`);
  near(gammaP(3, 2), 0.3233235838169365, 1e-13, 'P(3, 2)');
  near(gammaP(2, 5), 0.9595723180054871, 1e-13, 'P(2, 5)');
  near(gammaP(0.5, 0.3), 0.561421973919000136, 1e-13, 'P(0.5, 0.3)');
  near(gammaP(2.5, 7.5), 0.989637662084213563, 1e-13, 'P(2.5, 7.5)');
  near(gammaP(50, 60), 0.91559331890630817, 1e-11, 'P(50, 60)');
  // the Kolmogorov tail: 0.05 at 1.3581, 0.01 at 1.6276
  near(ksPValue(1.3581 / 1e4, 1e8), 0.05, 1e-4, 'Q(1.3581)');
  near(ksPValue(1.6276 / 1e4, 1e8), 0.01, 1e-4, 'Q(1.6276)');
  // by hand: samples 0.1, 0.4, 0.7 against the uniform: D = 1 - 0.7
  near(ksStatistic([0.7, 0.1, 0.4], (x) => x), 0.3, 1e-15, 'D');
});

// ---- the process the server saw ------------------------------------------

/**
 * Runs ARRIVALS arrivals of one process against a fresh simulator; returns
 * the gaps (s) between the arrival times the simulator recorded, and the
 * run document.
 */
async function arrivalsSeen(sc, args) {
  const dir = sc.dir();
  const truth = path.join(dir, 'truth.jsonl');
  const sim = await sc.sim(['--ttft-ms', '1', '--decode-tps', '5000', '--truth', truth]);
  const r = await runCli(['run', sim.url, '--db', path.join(dir, 'r.db'), '--json', '--no-progress',
    '--telemetry', 'none', '--warmup', '0', '--max-tokens', '1', '-n', String(ARRIVALS), ...args], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, `run ${args.join(' ')}: exit ${r.code}; stderr: ${r.stderr}`);
  await sim.stop(); // every truth line written
  const lines = readFileSync(truth, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  assert.equal(lines.length, ARRIVALS, `${args.join(' ')}: every arrival reached the server`);
  const t = lines.map((l) => l.arrival_mono_ns).sort((a, b) => a - b);
  return { gaps: t.slice(1).map((x, i) => (x - t[i]) / 1e9), doc: JSON.parse(r.stdout) };
}

test('the simulator sees 2,000 arrivals of each process as asked (KS at alpha 0.01)', async (t) => {
  const sc = testScope(t, 'truecost-open-');
  // In parallel: each process is a light load (a token per request), and
  // the three take as long as the slowest.
  const RATE = 150;
  const [poisson, gamma, constant] = await Promise.all([
    arrivalsSeen(sc, ['--rate', String(RATE), '--seed', '3']),
    arrivalsSeen(sc, ['--rate', String(RATE), '--arrival', 'gamma', '--burstiness', '2', '--seed', '4']),
    arrivalsSeen(sc, ['--rate', String(RATE), '--arrival', 'constant']),
  ]);
  const n = ARRIVALS - 1;

  // The documents say what was asked.
  assert.deepEqual(poisson.doc.run.load, { arrival: 'poisson', rate: RATE, burstiness: null, seed: 3, max_concurrency: null });
  assert.deepEqual(gamma.doc.run.load, { arrival: 'gamma', rate: RATE, burstiness: 2, seed: 4, max_concurrency: null });
  assert.equal(constant.doc.run.load.arrival, 'constant');
  for (const { doc } of [poisson, gamma, constant]) {
    assert.equal(doc.requests.measured, ARRIVALS);
    // Sent on time: a timerfd wakes the loop. A millisecond-granular wait
    // (epoll's timeout) rounds each send up by a uniform part of a
    // millisecond, so its p50 is 0.5 ms or more however fast the machine;
    // below that is the timer's own lag (about 0.1 ms here, 0.34 seen
    // under ASan with six processes on two cores).
    assert.ok(doc.metrics.schedule_lag_ms.p50 >= 0 && doc.metrics.schedule_lag_ms.p50 < 0.5, `lag p50 ${doc.metrics.schedule_lag_ms.p50} ms`);
    assert.ok(Array.isArray(doc.warnings));
  }

  // Poisson: exponential gaps of mean 1/R.
  const dp = ksStatistic(poisson.gaps, exponentialCdf(RATE));
  assert.ok(ksPValue(dp, n) > ALPHA, `poisson against the exponential: D = ${dp.toFixed(4)}, p = ${ksPValue(dp, n).toExponential(2)}`);

  // Gamma of shape 2: its own distribution, not the exponential.
  const dg = ksStatistic(gamma.gaps, gammaCdf(2, RATE));
  assert.ok(ksPValue(dg, n) > ALPHA, `gamma(2) against the gamma(2): D = ${dg.toFixed(4)}, p = ${ksPValue(dg, n).toExponential(2)}`);
  const dgWrong = ksStatistic(gamma.gaps, exponentialCdf(RATE));
  assert.ok(ksPValue(dgWrong, n) < ALPHA, `gamma(2) must not pass as exponential: D = ${dgWrong.toFixed(4)}`);

  // Constant: every gap 1/R, give or take the loopback's jitter (a stalled
  // moment on a shared machine shifts a few); and no Poisson process.
  const want = 1 / RATE;
  const dev = constant.gaps.map((g) => Math.abs(g - want));
  assert.ok(Math.abs(quantile(constant.gaps, 0.5) - want) < 0.02 * want, `constant: median gap ${quantile(constant.gaps, 0.5)} s, want ${want}`);
  assert.ok(quantile(dev, 0.8) < 0.001, `constant: 80% of gaps within 1 ms of ${want * 1e3} ms (80th percentile off by ${(quantile(dev, 0.8) * 1e3).toFixed(3)} ms)`);
  const dc = ksStatistic(constant.gaps, exponentialCdf(RATE));
  t.diagnostic(`D (p): poisson ${dp.toFixed(4)} (${ksPValue(dp, n).toFixed(3)}), gamma(2) ${dg.toFixed(4)} (${ksPValue(dg, n).toFixed(3)}); ` +
    `wrong ones: gamma as exponential ${dgWrong.toFixed(4)}, constant as exponential ${dc.toFixed(4)}; ` +
    `lag p99 ${[poisson, gamma, constant].map(({ doc }) => doc.metrics.schedule_lag_ms.p99.toFixed(3)).join(', ')} ms; ` +
    `constant gap deviation p80 ${(quantile(dev, 0.8) * 1e3).toFixed(3)} ms`);
  assert.ok(ksPValue(dc, n) < ALPHA, `constant must not pass as exponential: D = ${dc.toFixed(4)}`);
  // ...and the exponential's own gaps are no constant's.
  assert.ok(quantile(poisson.gaps.map((g) => Math.abs(g - want)), 0.8) > 0.001, 'poisson gaps are spread');
});

// ---- latency from the intended send time -------------------------------

test('latency counts from the intended time: waiting for the one slot is charged, and warned of', async (t) => {
  const sc = testScope(t, 'truecost-open-');
  const dir = sc.dir();
  const db = path.join(dir, 'r.db');
  const truth = path.join(dir, 'truth.jsonl');
  // Each request takes about 30 ms (TTFT 20 ms, then a step of 10 ms); one
  // is due every 10 ms, and only one may be in flight.
  const sim = await sc.sim(['--ttft-ms', '20', '--decode-tps', '100', '--truth', truth]);
  const r = await runCli(['run', sim.url, '--db', db, '--json', '--no-progress', '--telemetry', 'none', '--warmup', '0',
    '--max-tokens', '2', '-n', '12', '--rate', '100', '--arrival', 'constant', '--max-concurrency', '1', '--label', 'late'], { timeoutMs: 30_000 });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.run.load.max_concurrency, 1);
  assert.equal(doc.run.concurrency, 1);
  const lag = doc.metrics.schedule_lag_ms;
  assert.ok(lag.max > 150, `the queue builds: the last went out ${lag.max} ms late (about 11 x 20 ms)`);
  assert.ok(lag.p99 > 1);
  assert.equal(doc.warnings.length, 1);
  assert.match(doc.warnings[0], /schedule lag p99 [0-9.]+ ms is above 1 ms: the client could not keep up with 100 requests\/s, or its 1 requests in flight \(--max-concurrency\) were busy/);
  assert.match(r.stderr, /run 1: schedule lag p99 .* could not keep up/, 'said on stderr beside the JSON');
  // TTFT includes the wait: its mean is the server's TTFT plus the mean lag.
  assert.ok(doc.metrics.ttft_ms.mean > lag.mean + 20, `TTFT mean ${doc.metrics.ttft_ms.mean} ms > lag mean ${lag.mean} + 20`);

  // Per request: the export's TTFT is the time from the schedule, and the
  // schedule held (10 ms apart) while the sends fell behind it.
  const rows = parseCsv((await runCli(['export', 'late', '--db', db])).stdout);
  const head = rows[0];
  const col = (name) => head.indexOf(name);
  assert.deepEqual(head.slice(0, 6), ['seq', 'warmup', 'send_wall', 'sched_wall', 'schedule_lag_ms', 'http_status']);
  const body = rows.slice(1).filter((row) => row.length === head.length);
  assert.equal(body.length, 12);
  const sched = body.map((row) => Date.parse(row[col('sched_wall')]));
  for (let i = 1; i < 12; i++) assert.ok(Math.abs(sched[i] - sched[i - 1] - 10) <= 1, `scheduled 10 ms apart: ${sched[i] - sched[i - 1]}`);
  for (const row of body) {
    const ttft = Number(row[col('ttft_ms')]);
    const late = Number(row[col('schedule_lag_ms')]);
    assert.ok(ttft >= late + 19, `TTFT ${ttft} ms counts from the schedule: lag ${late} ms + the server's 20 ms`);
  }
  // The server saw each request only after its scheduled time plus the lag.
  await sim.stop();
  const seen = readFileSync(truth, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  const arrivals = seen.map((l) => l.arrival_mono_ns).sort((a, b) => a - b);
  assert.ok((arrivals[11] - arrivals[0]) / 1e6 > 200, 'one at a time: the server saw them about 30 ms apart, not 10');

  // show prints the load, the lag row and the warning.
  const show = (await runCli(['show', 'late', '--db', db])).stdout;
  assert.match(show, /open loop, server version/);
  assert.match(show, /^load {10}constant arrivals at 100 requests\/s, seed 0, at most 1 in flight$/m);
  assert.match(show, /^Lag \(ms\) /m);
  assert.match(show, /^WARNING schedule lag p99/m);
});

test('--duration ends the arrivals; a closed loop shows no open-loop keys', async (t) => {
  const sc = testScope(t, 'truecost-open-');
  const dir = sc.dir();
  const db = path.join(dir, 'r.db');
  const sim = await sc.sim(['--ttft-ms', '1', '--decode-tps', '5000']);
  const base = ['run', sim.url, '--db', db, '--json', '--no-progress', '--telemetry', 'none', '--warmup', '0', '--max-tokens', '1'];
  const open = await runCli([...base, '--rate', '50', '--arrival', 'constant', '--duration', '0.5']);
  assert.equal(open.code, 0, open.stderr);
  assert.equal(JSON.parse(open.stdout).requests.measured, 25, 'arrivals at 0, 20, ..., 480 ms');
  const closed = await runCli([...base, '-n', '3']);
  const doc = JSON.parse(closed.stdout);
  assert.ok(!('load' in doc.run) && !('schedule_lag_ms' in doc.metrics) && !('warnings' in doc), 'a closed loop\'s document is as before');
  const head = parseCsv((await runCli(['export', String(doc.run.id), '--db', db])).stdout)[0];
  assert.ok(!head.includes('sched_wall'), 'a closed loop\'s export is as before');
});

test('bad open-loop options are usage errors that say what to give', async () => {
  const cases = [
    [['--rate', '0'], /--rate 0: expected a number above 0 and at most 1e\+06, e\.g\. --rate 10/],
    [['--rate', 'inf'], /--rate: 'inf' is not a finite number/],
    [['--rate', '5', '--arrival', 'uniform'], /--arrival 'uniform': expected poisson, constant or gamma/],
    [['--rate', '5', '--burstiness', '2'], /--burstiness is the gamma process's shape: give --arrival gamma too/],
    [['--arrival', 'gamma'], /--arrival needs --rate/],
    [['--max-concurrency', '2'], /--max-concurrency caps an open loop and needs --rate/],
    [['--rate', '5', '-c', '2'], /with --rate, cap them with --max-concurrency/],
  ];
  for (const [args, want] of cases) {
    const r = await runCli(['run', 'http://127.0.0.1:9', '--db', '/nonexistent/r.db', ...args]);
    assert.equal(r.code, 1, `${args.join(' ')}: exit ${r.code}`);
    assert.match(r.stderr, want);
  }
});

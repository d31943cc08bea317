// The PostgreSQL store and `truecost import`: runs measured into an SQLite
// file are imported into PostgreSQL and read back with the same figures;
// importing twice adds nothing; a password in a postgresql:// URL is never
// printed. The PostgreSQL tests need a server: TC_TEST_PG_URL, which
// scripts/pg-test.sh sets (make check runs the whole suite under it, and
// TC_REQUIRE_PG=1 turns a missing server into a failure).
//
// Every test starts its own simulator on 127.0.0.1 and uses its own
// temporary directory and database; all is removed in t.after().
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { linkSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { setTimeout as sleep } from 'node:timers/promises';

import { REPO_ROOT, runCli, spawnTruecost, testScope } from './helpers.mjs';

const FAST = ['--ttft-ms', '1', '--decode-tps', '2000'];
const PG = process.env.TC_TEST_PG_URL || '';
const needPg = !PG && (process.env.TC_REQUIRE_PG ? false : 'needs TC_TEST_PG_URL (scripts/pg-test.sh)');
let dbs = 0;

/** A new database on the test server, dropped after the test; its URL. */
function pgDb(t) {
  assert.ok(PG, 'TC_REQUIRE_PG is set but TC_TEST_PG_URL is not: run under scripts/pg-test.sh');
  const name = `tc_it_${process.pid}_${++dbs}`;
  execFileSync('psql', [PG, '-qc', `CREATE DATABASE ${name}`], { stdio: 'pipe' });
  t.after(() => execFileSync('psql', [PG, '-qc', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`], { stdio: 'pipe' }));
  const m = PG.match(/^(postgres(?:ql)?:\/\/[^/?]*)(\/[^?]*)?(\?.*)?$/);
  return `${m[1]}/${name}${m[3] || ''}`;
}

async function ok(args) {
  const r = await runCli(args, { timeoutMs: 60_000 });
  assert.equal(r.code, 0, `truecost ${args.join(' ')}: ${r.stderr}`);
  return r;
}

/** Two runs (a group of 2) and one plain run into db. */
async function measure(sim, db) {
  const common = ['-n', '6', '-c', '2', '--max-tokens', '8', '--telemetry', 'none', '--no-progress', '--db', db];
  await ok(['run', sim.url, ...common, '--label', 'grp', '--repeat', '2']);
  await ok(['run', sim.url, ...common, '--label', 'solo']);
}

const showJson = async (db, what) => JSON.parse((await ok(['show', what, '--db', db, '--json'])).stdout);

test('import from SQLite into SQLite: new ids beside the own runs, twice adds nothing', async (t) => {
  const sc = testScope(t, 'truecost-import-');
  const dir = sc.dir();
  const sim = await sc.sim(FAST);
  const src = path.join(dir, 'src.db');
  const dst = path.join(dir, 'dst.db');
  await measure(sim, src);
  await ok(['run', sim.url, '-n', '2', '--max-tokens', '4', '--telemetry', 'none', '--no-progress', '--db', dst, '--label', 'own']);
  const first = JSON.parse((await ok(['import', src, '--db', dst, '--json'])).stdout);
  assert.equal(first.imported, 3);
  assert.equal(first.requests, 3 * (6 + 1)); // one warm-up each
  const again = JSON.parse((await ok(['import', src, '--db', dst, '--json'])).stdout);
  assert.equal(again.imported, 0);
  assert.equal(again.already_present, 3);
  const runs = JSON.parse((await ok(['runs', '--db', dst, '--json'])).stdout);
  assert.deepEqual(runs.map((r) => r.label).sort(), ['grp', 'grp', 'own', 'solo']);
  const a = await showJson(src, 'solo');
  const b = await showJson(dst, 'solo');
  assert.deepEqual(b.metrics, a.metrics, 'the same figures from the copied records');
  const text = (await ok(['import', src, '--db', dst])).stdout;
  assert.match(text, /imported 0 runs/);
  assert.match(text, /3 runs were already there/);
  // The target itself, however it is named, is refused: another spelling,
  // TRUECOST_DB, a symbolic link, a hard link (the same device and inode).
  symlinkSync(dst, path.join(dir, 'sym.db'));
  linkSync(dst, path.join(dir, 'hard.db'));
  for (const [args, env] of [[['import', `${dir}/./dst.db`, '--db', dst], {}], [['import', dst, '--db', dst], {}],
    [['import', dst], { TRUECOST_DB: dst }], [['import', `${dir}/sym.db`], { TRUECOST_DB: dst }],
    [['import', `${dir}/hard.db`, '--db', dst], {}], [['import', dst, '--db', `${dir}/hard.db`], {}]]) {
    const r = await runCli(args, { env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^truecost: import: .*(dst|sym|hard)\.db is the target store itself \(.*(dst|hard)\.db\); nothing to do$/m);
  }
});

test('PostgreSQL: runs stored there and imported there read back with the same figures', { skip: needPg }, async (t) => {
  const sc = testScope(t, 'truecost-pgstore-');
  const dir = sc.dir();
  const sim = await sc.sim(FAST);
  const src = path.join(dir, 'src.db');
  const pg = pgDb(t);
  await measure(sim, src);
  await measure(sim, pg); // written straight into PostgreSQL
  const direct = await showJson(pg, 'grp');
  assert.equal(direct.runs.length, 2);

  const pg2 = pgDb(t);
  const imp = JSON.parse((await ok(['import', src, '--db', pg2, '--json'])).stdout);
  assert.equal(imp.imported, 3);
  assert.equal(JSON.parse((await ok(['import', src, '--db', pg2, '--json'])).stdout).imported, 0);
  assert.deepEqual((await showJson(pg2, 'solo')).metrics, (await showJson(src, 'solo')).metrics);
  assert.deepEqual((await showJson(pg2, 'grp')).throughput, (await showJson(src, 'grp')).throughput);
  assert.ok((await showJson(src, 'grp')).throughput, 'the group document has its throughput');

  // and back out of PostgreSQL into a new SQLite file
  const back = path.join(dir, 'back.db');
  assert.equal(JSON.parse((await ok(['import', pg2, '--db', back, '--json'])).stdout).imported, 3);
  assert.deepEqual((await showJson(back, 'solo')).metrics, (await showJson(src, 'solo')).metrics);
});

test('a password in a postgresql:// URL is never printed', async () => {
  const url = 'postgresql://alice:s3cr3t-pw@127.0.0.1:1/nowhere?connect_timeout=2';
  for (const args of [['runs', '--db', url], ['import', url, '--db', url + '&x=1'], ['show', '1', '--db', url]]) {
    const r = await runCli(args, { env: { TRUECOST_DB: undefined } });
    assert.equal(r.code, 2, r.stderr);
    assert.doesNotMatch(r.stderr + r.stdout, /s3cr3t-pw/);
    assert.match(r.stderr, /alice:\*\*\*@127\.0\.0\.1/);
    assert.match(r.stderr, /warning: --db: a password on the command line can be read by any user of this host \(ps\).*~\/\.pgpass, PGPASSWORD, or a service file/);
  }
  // doctor checks the store of TRUECOST_DB: the server, never the password
  const d = await runCli(['doctor', '--json'], { env: { TRUECOST_DB: url }, timeoutMs: 60_000 });
  assert.doesNotMatch(d.stdout + d.stderr, /s3cr3t-pw/);
  const store = JSON.parse(d.stdout).checks.find((c) => c.id === 'truecost.store');
  assert.equal(store.status, 'fail');
  assert.match(JSON.stringify(store), /alice:\*\*\*@127\.0\.0\.1/);
});

test('a --db password is starred out of the process\'s command line while it runs', { skip: needPg }, async (t) => {
  const sc = testScope(t, 'truecost-pgpw-');
  const sim = await sc.sim(['--decode-tps', '50']);
  // Trust authentication: the password is taken and not needed.
  const url = PG.replace('postgresql://truecost@', 'postgresql://truecost:pw-7Yq2@');
  const run = spawnTruecost(['run', sim.url, '--db', url, '-n', '3', '--max-tokens', '40', '--telemetry', 'none',
    '--no-progress'], { t, timeoutMs: 60_000 });
  await sleep(1000);
  const cmdline = readFileSync(`/proc/${run.proc.pid}/cmdline`, 'latin1');
  assert.ok(cmdline.includes('postgresql://truecost:'), cmdline);
  assert.ok(!cmdline.includes('pw-7Yq2'), `the password in /proc/PID/cmdline: ${cmdline}`);
  const r = await run.done;
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /warning: --db: a password on the command line/);
  assert.doesNotMatch(r.stdout + r.stderr, /pw-7Yq2/);
});

const pick = (doc) => ({
  completed: doc.requests.completed,
  output_tokens_per_s: doc.throughput.output_tokens_per_s,
  requests_per_s: doc.throughput.requests_per_s,
  ttft_p50: doc.metrics.ttft_ms.p50,
  tpot_p50: doc.metrics.tpot_ms.p50,
  itl_p50: doc.metrics.itl_ms.p50,
  e2e_p50: doc.metrics.e2e_ms.p50,
  e2e_mean: doc.metrics.e2e_ms.mean,
});

test('4 shards on loopback into PostgreSQL merge into the figures of one process within 3%', { skip: needPg }, async (t) => {
  const sc = testScope(t, 'truecost-shards-');
  const dir = sc.dir();
  // a TTFT long against the client's own part of it (a few tenths of a ms
  // with 4 processes, under ASan, on two cores), so 3% measures the merge
  const sim = await sc.sim(['--ttft-ms', '50', '--decode-tps', '200']);
  const pg = pgDb(t);
  const load = ['-n', '64', '-c', '8', '--max-tokens', '32', '--telemetry', 'none', '--no-progress'];
  const single = path.join(dir, 'single.db');
  await ok(['run', sim.url, ...load, '--db', single, '--label', 'one']);
  const at = new Date(Date.now() + 3000).toISOString(); // 2026-12-01T10:00:00.123Z
  const shards = await Promise.all(
    [1, 2, 3, 4].map((i) => runCli(['run', sim.url, ...load, '--db', pg, '--label', 'fleet', '--shard', `${i}/4`, '--start-at', at, '--json'], { timeoutMs: 60_000 })),
  );
  for (const r of shards) assert.equal(r.code, 0, r.stderr);
  const parts = shards.map((r) => JSON.parse(r.stdout));
  assert.deepEqual(parts.map((p) => p.requests.measured), [16, 16, 16, 16]);
  assert.deepEqual(parts.map((p) => p.run.concurrency), [2, 2, 2, 2]);
  // a shard that started late would stretch the merged window and lower
  // its throughput: the 3% below holds only when they started together
  const merged = await showJson(pg, 'fleet');
  assert.equal(merged.run.concurrency, 8);
  assert.equal(merged.requests.measured, 64);
  const a = pick(await showJson(single, 'one'));
  const b = pick(merged);
  assert.equal(b.completed, a.completed);
  for (const k of Object.keys(a)) {
    const rel = Math.abs(b[k] - a[k]) / Math.abs(a[k]);
    assert.ok(rel <= 0.03, `${k}: merged ${b[k]} vs one process ${a[k]} (${(rel * 100).toFixed(2)}% apart)`);
  }
  // the text names the merge; one shard is still a run of its own
  const text = (await ok(['show', 'fleet', '--db', pg])).stdout;
  // --telemetry none: no energy to merge, and it says so (it named the server box's before)
  assert.match(text, /^4 shards of one workload, merged \(group 'fleet'; energy: none merged: the shards scraped no --telemetry URL\)$/m);
  const one = await showJson(pg, String(parts[0].run.id));
  assert.equal(one.requests.measured, 16);
  // cost would average the parts as if they were repetitions: refused
  const profile = path.join(REPO_ROOT, 'profiles', readdirSync(path.join(REPO_ROOT, 'profiles')).find((f) => f.endsWith('.ini')));
  const cost = await runCli(['cost', 'fleet', '--db', pg, '--profile', profile]);
  assert.equal(cost.code, 2, cost.stderr);
  assert.match(cost.stderr, /one run split into 4 shards/);
});

test('--shard and --start-at usage errors are found before anything is sent', async () => {
  for (const [args, re] of [
    [['--shard', '5/4', '--label', 'x'], /--shard '5\/4': expected I\/N/],
    [['--shard', '1/4'], /--shard needs --label/],
    [['--shard', '1/4', '--label', 'x', '-c', '2'], /too small to split 4 ways/],
    [['--start-at', 'tomorrow'], /--start-at 'tomorrow': expected a UTC time/],
    [['--start-at', '2026-13-01T00:00:00Z'], /--start-at/],
  ]) {
    const r = await runCli(['run', 'http://127.0.0.1:9', ...args, '--no-progress', '--db', '/nonexistent/x.db']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, re);
  }
});

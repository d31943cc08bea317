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
import path from 'node:path';
import { test } from 'node:test';

import { runCli, testScope } from './helpers.mjs';

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
  }
});

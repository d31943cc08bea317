// Review fixes of what `run`, `show`, `cost` and `export` write: a prompt
// count the server did not give makes the prompt total and total tokens/s
// "not available" (never the partial sum); labels, group and profile names
// that are not UTF-8 still give valid JSON; every export, samples included,
// says SIMULATED; and the chunks export tells warm-up and failed requests
// from the measured ones.
//
// Every test starts its own servers on 127.0.0.1 and uses its own temporary
// directory; everything it started is stopped in t.after().
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { BIN, REPO_ROOT, parseCsv, runCli, startFakeOllama, testScope } from './helpers.mjs';

const FAST = ['--ttft-ms', '1', '--decode-tps', '1000'];
const FAKE = process.env.TC_FAKE_LIB_DIR ?? path.resolve(REPO_ROOT, 'build/tests/fake');
const PROFILE = path.join(REPO_ROOT, 'profiles', 'rtx4090-workstation.ini');
const REPLACEMENT = '\uFFFD';

function scope(t) {
  return testScope(t, 'truecost-review-');
}

/** `truecost <args>` that must succeed; returns stdout. */
async function ok(args, opts = {}) {
  const r = await runCli(args, { timeoutMs: 60_000, ...opts });
  assert.equal(r.code, 0, `truecost ${args.join(' ')}: exit ${r.code}; stderr: ${r.stderr}`);
  return r.stdout;
}

function parseJson(text, what) {
  try {
    return JSON.parse(text);
  } catch (e) {
    assert.fail(`${what} is not one JSON document (${e.message}): ${text.slice(0, 400)}`);
  }
}

/** CSV text as objects keyed by the header. */
function csvObjects(text) {
  const [head, ...rows] = parseCsv(text);
  return { head, rows: rows.map((row) => Object.fromEntries(head.map((h, i) => [h, row[i]]))) };
}

/** The fake Ollama with a counted reply: eval_count 5 unless `final` says otherwise. */
function fakeOllama(t, final) {
  return startFakeOllama((n) => ({ eval_count: 5, eval_duration: 5e7, ...final(n) }), { t });
}

async function runDoc(url, db, args) {
  const out = await ok(['run', url, '--db', db, '--json', '--no-progress', '--telemetry', 'none', '--max-tokens', '8', ...args]);
  return parseJson(out, 'run --json');
}

// ---- 1. an unknown prompt count is not 0 ---------------------------------------------

test('no prompt count from the server: prompt total and total tokens/s are null / n/a, not the partial sum', async (t) => {
  const sc = scope(t);
  const db = path.join(sc.dir(), 'db');
  const cases = [
    // [label, final fields of request n, prompt_source, prompt_missing of the 4 measured]
    ['all-counted', () => ({ prompt_eval_count: 7 }), 'server', 0],
    ['none-counted', () => ({}), 'none', 4],
    // The warm-up is request 0; measured 1..4: 2 and 4 lack the count.
    ['some-counted', (n) => (n % 2 ? { prompt_eval_count: 7 } : {}), 'mixed', 2],
  ];
  for (const [label, final, source, missing] of cases) {
    const srv = await fakeOllama(t, final);
    const doc = await runDoc(srv.url, db, ['-n', '4', '--warmup', '1', '--label', label]);
    assert.equal(doc.requests.completed, 4, label);
    assert.equal(doc.tokens.prompt_source, source, `${label}: ${JSON.stringify(doc.tokens)}`);
    assert.equal(doc.tokens.prompt_missing, missing, label);
    assert.equal(doc.tokens.output, 20, label);
    assert.equal(doc.tokens.source, 'server', label);
    assert.equal(typeof doc.throughput.output_tokens_per_s, 'number', label);
    if (missing === 0) {
      assert.equal(doc.tokens.prompt, 28, label);
      const want = (doc.tokens.output + doc.tokens.prompt) / doc.duration_s;
      assert.ok(Math.abs(doc.throughput.total_tokens_per_s - want) < 1e-6, `${label}: ${doc.throughput.total_tokens_per_s} vs ${want}`);
    } else {
      assert.equal(doc.tokens.prompt, null, `${label}: a partial sum is no total`);
      assert.equal(doc.throughput.total_tokens_per_s, null, `${label}: not output tok/s in disguise`);
    }
    // The table says n/a and why; the summary export says null (empty).
    const table = await ok(['show', label, '--db', db]);
    const summary = csvObjects(await ok(['export', label, '--db', db, '--what', 'summary']));
    const kv = Object.fromEntries(summary.rows.map((r) => [r.key, r.value]));
    if (missing === 0) {
      assert.match(table, /\d total tokens\/s\n/);
      assert.match(table, /20 output, 28 prompt/);
      assert.equal(kv['tokens.prompt'], '28');
    } else {
      assert.match(table, new RegExp(` n/a total tokens/s \\(no prompt count for ${missing} of 4 requests\\)\\n`), table);
      assert.match(table, /20 output, n\/a prompt \(counted by: server count\)/, table);
      assert.equal(kv['tokens.prompt'], '');
      assert.equal(kv['throughput.total_tokens_per_s'], '');
    }
    assert.equal(kv['tokens.prompt_source'], source);
    await srv.close();
  }
});

// ---- 2. labels, group and profile names that are not UTF-8 -------------------------

/**
 * Runs a shell script with $TC (the binary) and the given variables, so that
 * arguments can hold bytes that are not UTF-8 (printf '\351'), which node
 * cannot put in an argument. Resolves {code, stdout, stderr}.
 */
function sh(script, vars, { timeoutMs = 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn('/bin/sh', ['-c', script], { env: { ...process.env, TC: BIN, ...vars }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    proc.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`sh -c ${script} did not exit within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    proc.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `$TC <args> "$L"…`: the script must succeed; returns stdout. */
async function shOk(script, vars) {
  const r = await sh(script, vars);
  assert.equal(r.code, 0, `${script}: exit ${r.code}; stderr: ${r.stderr}`);
  return r.stdout;
}

test('labels, a group name and a profile path that are not UTF-8: show, export and cost still write valid JSON', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const sim = await sc.sim(FAST);
  const vars = { DB: path.join(dir, 'db'), URL: sim.url };
  // "caf\xe9" and "grp\xe9": Latin-1 bytes, invalid UTF-8.
  const CAFE = "L=$(printf 'caf\\351');";
  const GRP = "G=$(printf 'grp\\351');";
  const RUN = '"$TC" run "$URL" --db "$DB" --no-progress --telemetry none --max-tokens 4';
  await shOk(`${CAFE} ${RUN} -n 2 --label "$L" >/dev/null`, vars);
  await shOk(`${GRP} ${RUN} -n 2 --repeat 2 --label "$G" >/dev/null`, vars);

  const one = parseJson(await shOk(`${CAFE} "$TC" show "$L" --db "$DB" --json`, vars), 'show RUN --json');
  assert.equal(one.run.label, `caf${REPLACEMENT}`);

  const group = parseJson(await shOk(`${GRP} "$TC" show "$G" --db "$DB" --json`, vars), 'show GROUP --json');
  assert.equal(group.group, `grp${REPLACEMENT}`);
  assert.equal(group.simulated, true);
  assert.equal(group.runs.length, 2);
  for (const r of group.runs) assert.equal(r.label, `grp${REPLACEMENT}`);

  const gsum = parseJson(await shOk(`${GRP} "$TC" export "$G" --db "$DB" --what summary --format json`, vars), 'export GROUP --what summary');
  assert.deepEqual(gsum, group, 'the export is the document show printed');
  const gcsv = csvObjects(await shOk(`${GRP} "$TC" export "$G" --db "$DB" --what summary`, vars));
  assert.equal(gcsv.rows.find((r) => r.key === 'group')?.value, `grp${REPLACEMENT}`);

  // A profile at a path that is not UTF-8 either.
  const PROF = `P="$DIR/$(printf 'p\\351.ini')"; cp "$PROFILE" "$P";`;
  const cost = parseJson(await shOk(`${CAFE} ${PROF} "$TC" cost "$L" --db "$DB" --profile "$P" --json`, { ...vars, DIR: dir, PROFILE }), 'cost RUN --json');
  assert.equal(cost.label, `caf${REPLACEMENT}`);
  assert.equal(cost.profile, path.join(dir, `p${REPLACEMENT}.ini`));
  assert.equal(cost.simulated, true);
  assert.equal(typeof cost.cost_per_million_tokens, 'number');

  const gcost = parseJson(await shOk(`${GRP} "$TC" cost "$G" --db "$DB" --profile "$PROFILE" --json`, { ...vars, PROFILE }), 'cost GROUP --json');
  assert.equal(gcost.group.name, `grp${REPLACEMENT}`);
  assert.equal(gcost.label, `grp${REPLACEMENT}`);
  assert.equal(gcost.group.run_ids.length, 2);
});

test('compare and roofline --json with labels that are not UTF-8 still write valid JSON', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const sim = await sc.sim(FAST);
  const vars = { DB: path.join(dir, 'db'), URL: sim.url };
  const CAFE = "L=$(printf 'caf\\351');";
  const GRP = "G=$(printf 'grp\\351');";
  const RUN = '"$TC" run "$URL" --db "$DB" --no-progress --telemetry none --max-tokens 4';
  await shOk(`${CAFE} ${RUN} -n 3 --label "$L" >/dev/null`, vars);
  await shOk(`${GRP} ${RUN} -n 3 --label "$G" >/dev/null`, vars);
  const cmp = parseJson(await shOk(`${CAFE} ${GRP} "$TC" compare "$L" "$G" --db "$DB" --json`, vars), 'compare --json');
  assert.equal(cmp.a.name, `caf${REPLACEMENT}`);
  assert.equal(cmp.b.name, `grp${REPLACEMENT}`);
  const roof = parseJson(
    await shOk(`${CAFE} "$TC" roofline "$L" --db "$DB" --gpu "H100 SXM" --params 8B --json`, vars),
    'roofline --json',
  );
  assert.equal(roof.label, `caf${REPLACEMENT}`);
});

// ---- 3. export --what samples says SIMULATED -----------------------------------------

async function samples(db, run) {
  const csv = csvObjects(await ok(['export', String(run), '--db', db, '--what', 'samples']));
  const js = parseJson(await ok(['export', String(run), '--db', db, '--what', 'samples', '--format', 'json']), 'samples JSON');
  return { csv, js };
}

test('export --what samples: a simulated column / field on every row, as every other export has', async (t) => {
  const sc = scope(t);
  const db = path.join(sc.dir(), 'db');
  const sim = await sc.sim(FAST);
  const nvml = ['--telemetry', 'nvml', '--nvml-lib', path.join(FAKE, 'libfake_nvml.so'), '--sample-ms', '20'];
  const run = async (url) => {
    const out = await ok(['run', url, '--db', db, '--json', '--no-progress', '-n', '3', '--max-tokens', '20', ...nvml], {
      env: { FAKE_NVML_ENERGY_RATE_MW: '300000' },
    });
    return parseJson(out, 'run --json').run;
  };
  const simRun = await run(sim.url);
  assert.equal(simRun.simulated, true);
  const srv = await fakeOllama(t, () => ({ prompt_eval_count: 3 }));
  const realRun = await run(srv.url);
  assert.equal(realRun.simulated, false);

  for (const [r, want] of [
    [simRun, 'true'],
    [realRun, 'false'],
  ]) {
    const { csv, js } = await samples(db, r.id);
    assert.equal(csv.head.at(-1), 'simulated', `the last column: ${csv.head}`);
    assert.deepEqual(csv.head.slice(0, 4), ['device', 'name', 't_s', 'power_w'], 'the existing columns keep their order');
    assert.ok(csv.rows.length > 0, 'samples were stored');
    for (const row of csv.rows) assert.equal(row.simulated, want, JSON.stringify(row));
    assert.equal(js.length, csv.rows.length);
    for (const row of js) assert.equal(row.simulated, want === 'true', JSON.stringify(row));
  }
});

// ---- 4. the chunks export tells warm-up and failed requests apart ---------------------

test('export --what chunks: warmup and error columns select the population the ITL figure uses', async (t) => {
  const sc = scope(t);
  const db = path.join(sc.dir(), 'db');
  // Half the requests are cut halfway: they have chunks but failed.
  const sim = await sc.sim([...FAST, '--fault', 'disconnect:0.5', '--seed', '3']);
  const doc = await runDoc(sim.url, db, ['-n', '10', '--warmup', '2', '--max-error-rate', '1']);
  assert.ok(doc.requests.failed > 0 && doc.requests.completed > 0, JSON.stringify(doc.requests));
  const id = String(doc.run.id);

  const csv = csvObjects(await ok(['export', id, '--db', db, '--what', 'chunks']));
  assert.deepEqual(csv.head, ['seq', 'index', 't_ms', 'gap_ms', 'warmup', 'error', 'simulated']);
  const reqs = parseJson(await ok(['export', id, '--db', db, '--what', 'requests', '--format', 'json']), 'requests JSON');
  const bySeq = new Map(reqs.map((r) => [r.seq, r]));
  const chunks = parseJson(await ok(['export', id, '--db', db, '--what', 'chunks', '--format', 'json']), 'chunks JSON');
  assert.equal(chunks.length, csv.rows.length);
  const seen = { warmup: 0, failed: 0 };
  for (const c of chunks) {
    const r = bySeq.get(c.seq);
    assert.equal(c.warmup, r.warmup, `seq ${c.seq}: warmup as in the requests export`);
    assert.equal(c.error, r.error, `seq ${c.seq}: error as in the requests export`);
    assert.equal(c.simulated, true);
    if (c.warmup) seen.warmup++;
    else if (c.error !== 'ok') seen.failed++;
  }
  assert.ok(seen.warmup > 0 && seen.failed > 0, `both kinds have chunks: ${JSON.stringify(seen)}`);
  // Selected by the new columns alone, the gaps are the ITL figure's.
  const itl = chunks.filter((c) => !c.warmup && c.error === 'ok' && c.gap_ms !== null).map((c) => c.gap_ms);
  const all = chunks.filter((c) => c.gap_ms !== null).map((c) => c.gap_ms);
  assert.ok(all.length > itl.length, 'without them, the pool holds more gaps than ITL uses');
  const mean = itl.reduce((a, b) => a + b, 0) / itl.length;
  assert.ok(Math.abs(mean - doc.metrics.itl_ms.mean) < 1e-6, `ITL mean ${doc.metrics.itl_ms.mean} vs ${mean} from the export`);
  assert.equal(Math.max(...itl).toFixed(6), doc.metrics.itl_ms.max.toFixed(6));
  // The CSV says the same as the JSON.
  csv.rows.forEach((row, i) => {
    assert.equal(row.warmup, String(chunks[i].warmup));
    assert.equal(row.error, chunks[i].error);
  });
});

test('export -o: never over the store it reads (the one guard every command that writes a file uses)', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const db = path.join(dir, 'db');
  const sim = await sc.sim(FAST);
  await runDoc(sim.url, db, ['-n', '2']);
  const before = readFileSync(db);
  const r = await runCli(['export', '1', '--db', db, '-o', path.join(dir, '.', 'db')]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^truecost: export: -o .*db is the same file as --db .*db, an input: give another output file$/m);
  assert.deepEqual(readFileSync(db), before);
});

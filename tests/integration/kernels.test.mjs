// truecost kernels: the shipped nsys and rocprofv3 examples as text and as
// JSON (class times against the example files' own rows, summed here), the
// fallback pair flagged, the tuning list's days summed, --rules, a trace,
// and every bad input as a usage error naming FILE:LINE.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { REPO_ROOT, parseCsv, runCli, testScope } from './helpers.mjs';

const EX = path.join(REPO_ROOT, 'examples');
const NV = path.join(EX, 'kernels-nsys-example.csv');
const AMD = path.join(EX, 'kernels-rocprofv3-example.csv');

const near = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-9 * (Math.abs(b) + 1), `${what}: ${a} != ${b}`);

// The rows of an example: the lines from its header on, as CSV.
function exampleRows(file, headerStart) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.startsWith(headerStart));
  const rows = parseCsv(lines.slice(at).join('\n')).filter((r) => r.length > 1);
  const head = rows.shift();
  return rows.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]])));
}

test('kernels text: one file, then the pair with the fallback and the tuning list', async () => {
  let r = await runCli(['kernels', NV]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Kernels of .*kernels-nsys-example\.csv \(nsys_kern_sum\): 11 kernels, 841\.7 ms/);
  assert.match(r.stdout, /^  attention\s+143\.2\s+17\.01%\s+1$/m);
  assert.match(r.stdout, /Largest non-GEMM kernels \(where a fallback usually sits\)/);
  assert.doesNotMatch(r.stdout, /Probable fallback/);

  r = await runCli(['kernels', NV, AMD, '--top', '3']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /vs alternative .*\(rocprofv3_kernel_stats\): 13 kernels/);
  assert.match(r.stdout, /^  softmax\s+1\.235\s+0\.1467%\s+118\.8\s+11\.24%\s+96\.2$/m);
  assert.match(r.stdout, /Share grew most: softmax \+11\.1 points/);
  assert.match(r.stdout, /Probable fallback on the alternative: no fused attention kernel \(the incumbent runs one\)/);
  assert.match(r.stdout, /1\. gemm: saves 169\.9 ms, 16\.08% .*\[attention fallback\]\n\s+1 kernel x 2\.\.3\.\.5 = 2\.\.3\.\.5 person-days:/);
  assert.match(r.stdout, /T_perf from this list: 10\.\.15\.\.25 person-days/);
  // --top 3: three matched kernels at most.
  const matched = r.stdout.split('Same kernels on both')[1].split('Only on the alternative')[0];
  assert.equal(matched.trim().split('\n').length, 1 + 1 + 3);
  // Figures for people: 4 significant digits at most.
  for (const m of r.stdout.matchAll(/(?<![\w.<>])(\d+\.\d+)(?![\w.])/g)) {
    const digits = m[1].replace('.', '').replace(/^0+/, '');
    assert.ok(digits.length <= 4, `${m[1]} has more than 4 significant digits`);
  }
});

test('kernels --json: class times are the example files\' rows, summed; the pair is flagged', async () => {
  const r = await runCli(['kernels', NV, AMD, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.profiles.length, 2);
  const [a, b] = doc.profiles;
  assert.equal(a.role, 'incumbent');
  assert.equal(b.role, 'alternative');
  assert.equal(a.format, 'nsys_kern_sum');
  assert.equal(b.format, 'rocprofv3_kernel_stats');

  const nv = exampleRows(NV, 'Time (%)');
  const amd = exampleRows(AMD, '"Name"');
  const sum = (rows, col) => rows.reduce((s, row) => s + Number(row[col]), 0);
  assert.equal(a.total_ns, sum(nv, 'Total Time (ns)'));
  assert.equal(b.total_ns, sum(amd, 'TotalDurationNs'));
  assert.equal(a.kernel_count, nv.length);
  // Each kernel's time and calls as its row gives them.
  for (const row of amd) {
    const k = b.kernels.find((x) => x.name === row.Name);
    assert.ok(k, row.Name);
    assert.equal(k.time_ns, Number(row.TotalDurationNs));
    assert.equal(k.calls, Number(row.Calls));
  }
  // Class times: the rows whose names the rules put there, summed here.
  const softmaxRows = amd.filter((row) => /softmax/i.test(row.Name));
  assert.equal(b.classes.softmax.time_ns, sum(softmaxRows, 'TotalDurationNs'));
  const gemmRows = amd.filter((row) => row.Name.startsWith('Cijk_'));
  assert.equal(b.classes.gemm.time_ns, sum(gemmRows, 'TotalDurationNs'));
  near(b.classes.gemm.share, b.classes.gemm.time_ns / b.total_ns, 'gemm share');
  assert.equal(b.classes.attention.time_ns, 0);
  let shares = 0;
  for (const c of Object.values(b.classes)) shares += c.share;
  near(shares, 1, 'class shares add to 1');

  assert.equal(a.fallback.probable, false);
  assert.equal(b.fallback.probable, true);
  assert.equal(doc.comparison.attention_fell_back, true);
  assert.equal(doc.comparison.share_grew[0], 'softmax');
  const sm = doc.comparison.classes.find((c) => c.class === 'softmax');
  near(sm.ratio, sm.alternative_ns / sm.incumbent_ns, 'softmax ratio');

  // The tuning list: savings are the class differences; T_perf their days.
  const t = doc.tuning;
  assert.deepEqual(t.effort_days_per_kernel, { low: 2, mode: 3, high: 5 });
  assert.ok(t.entries.length >= 2);
  const tp = { low: 0, mode: 0, high: 0 };
  for (const e of t.entries) {
    const c = doc.comparison.classes.find((x) => x.class === e.class);
    assert.equal(e.saving_ns, c.alternative_ns - c.incumbent_ns);
    assert.equal(e.kernel_count, e.kernels.length);
    for (const k of Object.keys(tp)) {
      near(e.effort_days[k], e.kernel_count * t.effort_days_per_kernel[k], `${e.class} ${k}`);
      tp[k] += e.effort_days[k];
    }
  }
  for (const k of Object.keys(tp)) near(t.t_perf_days[k], tp[k], `t_perf ${k}`);
  assert.equal(t.entries[0].class, 'gemm');
  assert.equal(t.entries[0].suspect_fallback, true);
  assert.match(doc.note, /same work/);

  const one = JSON.parse((await runCli(['kernels', NV, '--json'])).stdout);
  assert.equal(one.profiles[0].role, 'single');
  assert.equal(one.comparison, null);
  assert.equal(one.tuning, null);
  assert.equal(one.rules_file, null);
});

test('kernels --rules: the user\'s rules come first; a trace reads', async (t) => {
  const sc = testScope(t, 'truecost-kernels-');
  const dir = sc.dir();
  const rules = path.join(dir, 'rules.csv');
  writeFileSync(rules, '# mine\npattern,class\n*softmax*,other\n');
  const r = await runCli(['kernels', AMD, '--rules', rules, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.rules_file, rules);
  const p = doc.profiles[0];
  assert.equal(p.classes.softmax.time_ns, 0);
  const k = p.kernels.find((x) => /cunn_SoftMaxForward<8/.test(x.name));
  assert.equal(k.class, 'other');
  assert.equal(k.rule_from, 'user');
  assert.equal(k.rule_line, 3);
  assert.equal(p.fallback.probable, false);

  const trace = path.join(dir, 'kernel_trace.csv');
  writeFileSync(trace,
    '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n' +
    '"KERNEL_DISPATCH","Agent 4",1,1,1,1,10,"Cijk_Ailk_Bljk_HHS",1,1000,4000,0,0,8,0,16,64,1,1,1024,1,1\n' +
    '"KERNEL_DISPATCH","Agent 4",1,1,1,2,11,"void softmax_warp_forward<float, 10>(float*, int)",2,5000,5500,0,0,8,0,16,64,1,1,1024,1,1\n' +
    '"KERNEL_DISPATCH","Agent 4",1,1,1,3,10,"Cijk_Ailk_Bljk_HHS",3,6000,7000,0,0,8,0,16,64,1,1,1024,1,1\n');
  const tr = JSON.parse((await runCli(['kernels', trace, '--json'])).stdout).profiles[0];
  assert.equal(tr.format, 'rocprofv3_kernel_trace');
  assert.equal(tr.rows, 3);
  assert.equal(tr.classes.gemm.time_ns, 3000 + 1000);
  assert.equal(tr.classes.softmax.time_ns, 500);
  assert.equal(tr.kernels[0].calls, 2);
  assert.equal(tr.fallback.probable, true);
});

test('kernels: bad input is a usage error naming FILE:LINE; an unreadable file exits 2', async (t) => {
  const sc = testScope(t, 'truecost-kernels-');
  const dir = sc.dir();
  const cases = [
    ['empty.csv', '', /empty\.csv: empty/],
    ['noname.csv', 'Time (%),Total Time (ns),Instances\n1,2,3\n', /noname\.csv:1: the header has no kernel name column/],
    ['notime.csv', 'Name,Calls\nk,1\n', /notime\.csv:1: the header has no time column/],
    ['units.csv', 'Time (%),Total Time (ns),Instances,Name\n1,12ms,3,k\n', /units\.csv:2: .*units mixed/],
    ['neg.csv', 'Time (%),Total Time (ns),Instances,Name\n1,-5,3,k\n', /neg\.csv:2: .*negative/],
    ['nan.csv', 'Time (%),Total Time (ns),Instances,Name\n1,NaN,3,k\n', /nan\.csv:2: .*'NaN' is not a time/],
    ['quote.csv', 'Time (%),Total Time (ns),Instances,Name\n1,5,3,"k\n', /quote\.csv:2: a quoted cell .* never closed/],
    ['long.csv', `Time (%),Total Time (ns),Instances,Name\n1,5,3,${'k'.repeat(1 << 20)}\n`, /long\.csv:2: a cell longer than 65536 bytes/],
  ];
  for (const [name, text, re] of cases) {
    const f = path.join(dir, name);
    writeFileSync(f, text);
    const r = await runCli(['kernels', f]);
    assert.equal(r.code, 1, `${name}: ${r.stderr}`);
    assert.match(r.stderr, /^truecost: kernels: /);
    assert.match(r.stderr, re, name);
    assert.equal(r.stdout, '');
  }
  // A million rows of distinct kernels: refused at the bound, with its line.
  const big = path.join(dir, 'million.csv');
  const rows = ['Time (%),Total Time (ns),Instances,Name'];
  for (let i = 0; i < 1_000_000; i++) rows.push(`0.0,${i + 1},1,k${i}`);
  writeFileSync(big, rows.join('\n') + '\n');
  let r = await runCli(['kernels', big]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /million\.csv:100002: more than 100000 distinct kernels/);

  r = await runCli(['kernels', path.join(dir, 'missing.csv')]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /missing\.csv/);
  for (const args of [['kernels'], ['kernels', NV, AMD, NV], ['kernels', NV, '--top', '0']]) {
    r = await runCli(args);
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
  }
  r = await runCli(['kernels', '--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^Usage: truecost kernels FILE \[FILE_B\]/);
});

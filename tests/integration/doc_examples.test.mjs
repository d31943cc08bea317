// The examples the pages show run as the pages say (issue 31): every
// fenced shell block of the pages below that runs `truecost` is run,
// command by command, in a scratch directory of its own (examples/ and
// profiles/ linked in, TRUECOST_DB its own file), with every URL and URL_X
// placeholder swapped for a simulator this test starts (a `truecost sim
// ... &` line of the block becomes one, with its options). Each command
// must exit 0, or the status EXIT_STATUS gives it, which its page's
// "## Exit status" must list; where the block shows a command's output
// (`$ truecost ...` and the lines under it), every line shown is a line of
// what the command printed (one ending in "..." a line's start).
//
// What is not run is listed in SKIP with its reason; the files an example
// names that are not in the tree are made by STAND_INS. A listed block or
// stand-in that no page has any more fails the test, so the lists stay true.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { BIN, REPO_ROOT, runCli, startSim, tempDir } from './helpers.mjs';

// The pages whose examples are run (README.md's and the quickstart's
// rehearsals also run as whole blocks: readme.test.mjs).
const PAGES = [
  'README.md',
  'docs/quickstart-finetune.md',
  ...readdirSync(path.join(REPO_ROOT, 'docs', 'commands')).filter((f) => f.endsWith('.md') && f !== 'README.md')
    .sort().map((f) => `docs/commands/${f}`),
];

// Blocks not run, by page and a line of the block, with why.
const SKIP = [
  ['README.md', 'truecost --help', 'the command list: a synopsis, not commands'],
  ['docs/quickstart-finetune.md', '-- python3 finetune.py', 'two GPU boxes and the team\'s fine-tuning script'],
  ['docs/quickstart-finetune.md', 'nsys profile', 'Nsight Systems and ROCm\'s profiler on two GPU boxes'],
  ['docs/quickstart-finetune.md', '--fit fit.json --kernels kernels.json --gaps gaps.json',
    'the evidence of the steps above, measured on two GPU boxes'],
  ['docs/commands/agent.md', 'truecost agent --listen 0.0.0.0:9464',
    'two hosts: an agent serving a GPU box\'s sensors, and a client on another machine'],
  ['docs/commands/train.md', '-- python3 finetune.py',
    'two GPU boxes, a PostgreSQL server and the user\'s fine-tuning script'],
];

// Files examples name that the tree does not have: made in each scratch
// directory, from a file of the tree or as the text given.
const LLAMA2_7B_CONFIG = JSON.stringify({
  _name_or_path: 'meta-llama/Llama-2-7b-hf', architectures: ['LlamaForCausalLM'], bos_token_id: 1,
  eos_token_id: 2, hidden_act: 'silu', hidden_size: 4096, initializer_range: 0.02, intermediate_size: 11008,
  max_position_embeddings: 4096, model_type: 'llama', num_attention_heads: 32, num_hidden_layers: 32,
  num_key_value_heads: 32, pretraining_tp: 1, rms_norm_eps: 1e-5, rope_scaling: null, tie_word_embeddings: false,
  torch_dtype: 'float16', use_cache: true, vocab_size: 32000,
});
const STAND_INS = {
  'my-model-ops.txt': { from: 'examples/ops-llama7b-lora-profiler.txt' },
  'nv-kernels.csv': { from: 'examples/kernels-nsys-example.csv' },
  'amd-prof/HOST/PID_kernel_stats.csv': { from: 'examples/kernels-rocprofv3-example.csv' },
  'Llama-2-7b-hf/config.json': { text: LLAMA2_7B_CONFIG }, // the model's own config.json
};

// Commands whose page says they exit other than 0: [page, command start, status].
const EXIT_STATUS = [];

// Fast simulated servers: a 128-token answer in about 26 ms.
const SIM = ['--ttft-ms', '1', '--prefill-tps', '100000', '--decode-tps', '5000'];

const dir = tempDir('truecost-examples-');
after(() => rmSync(dir, { recursive: true, force: true }));

// The fenced blocks of a page: {line, info, lines}.
function fencedBlocks(text) {
  const blocks = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = lines[i].match(/^```(\w*)\s*$/);
    if (!m) continue;
    const start = i;
    const body = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    blocks.push({ line: start + 1, info: m[1], lines: body });
  }
  return blocks;
}

// A block's commands: {cmd, shown} (shown: the output under a `$ ` command,
// or null), continuation lines joined, comments dropped.
function commandsOf(lines) {
  const prompted = lines.some((l) => l.startsWith('$ '));
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    let l = lines[i];
    if (prompted && !l.startsWith('$ ')) {
      out.at(-1)?.shown.push(l);
      continue;
    }
    l = l.replace(/^\$ /, '');
    while (/\\\s*$/.test(l) && i + 1 < lines.length) l = l.replace(/\\\s*$/, ' ') + lines[++i].trim();
    l = l.replace(/\s+#.*$/, '').trim();
    if (l && !l.startsWith('#')) out.push({ cmd: l, shown: prompted ? [] : null });
  }
  return out;
}

// The examples of every page: {page, line, commands, skip}.
function examples() {
  const out = [];
  for (const page of PAGES) {
    const blocks = fencedBlocks(readFileSync(path.join(REPO_ROOT, page), 'utf8'));
    blocks.forEach((b, k) => {
      if (page.startsWith('docs/commands/') && k === 0) return; // the usage block (the docs test checks it)
      if (!['', 'sh', 'bash', 'shell', 'console'].includes(b.info)) return; // CSV, INI, Python
      const commands = commandsOf(b.lines);
      if (!commands.some((c) => /^truecost\s/.test(c.cmd))) return; // output or a formula, not commands
      const skip = SKIP.find(([p, line]) => p === page && b.lines.some((l) => l.includes(line)));
      out.push({ page, line: b.line, commands, skip: skip?.[2] ?? null });
    });
  }
  return out;
}

// The statuses a page's "## Exit status" names.
function pageStatuses(page) {
  const text = readFileSync(path.join(REPO_ROOT, page), 'utf8').split(/^## Exit status$/m)[1] ?? '';
  return new Set([...text.split(/^## /m)[0].matchAll(/\b(\d{1,3})\b/g)].map((m) => Number(m[1])));
}

function scratch(name) {
  const d = path.join(dir, name);
  mkdirSync(d, { recursive: true });
  for (const f of ['examples', 'profiles']) symlinkSync(path.join(REPO_ROOT, f), path.join(d, f));
  for (const [rel, s] of Object.entries(STAND_INS)) {
    mkdirSync(path.dirname(path.join(d, rel)), { recursive: true });
    if (s.from) copyFileSync(path.join(REPO_ROOT, s.from), path.join(d, rel));
    else writeFileSync(path.join(d, rel), s.text);
  }
  return d;
}

function sh(cmd, cwd, env) {
  return new Promise((resolve, reject) => {
    const p = spawn('bash', ['-c', cmd], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    p.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => p.kill('SIGKILL'), 120_000);
    p.on('error', reject);
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, stdout, stderr });
    });
  });
}

// Runs one example; returns what differs from its page.
async function runExample(ex, k) {
  const cwd = scratch(`ex${k}`);
  const env = { ...process.env, PATH: `${path.dirname(BIN)}:${process.env.PATH}`, TRUECOST_DB: path.join(cwd, 'db') };
  const problems = [];
  const sims = new Map(); // a URL or placeholder of the page -> a simulator's URL
  const models = [...ex.commands.map((c) => c.cmd).join(' ').matchAll(/--model\s+(\S+)/g)].map((m) => ['--model', m[1]]).flat();
  const simFor = async (key, extra = []) => {
    if (!sims.has(key)) sims.set(key, await startSim([...SIM, ...models, ...extra]));
    return sims.get(key).url;
  };
  try {
    for (const { cmd, shown } of ex.commands) {
      const bg = cmd.match(/^truecost sim (.*)&$/); // a simulator the page starts: ours instead
      if (bg) {
        const args = bg[1].trim().split(/\s+/);
        const at = args.indexOf('--listen');
        const listen = at >= 0 ? args.splice(at, 2)[1] : 'sim';
        await simFor(`http://${listen}`, args);
        continue;
      }
      if (/^kill %/.test(cmd)) continue; // ours stop when the example ends
      let line = cmd;
      for (const m of cmd.matchAll(/\bhttps?:\/\/[\w.-]+(:\d+)?|\bURL(_[A-Z])?\b/g))
        line = line.split(m[0]).join(await simFor(m[0]));
      const want = EXIT_STATUS.find(([p, start]) => p === ex.page && cmd.startsWith(start))?.[2] ?? 0;
      const r = await sh(line, cwd, env);
      const where = `${ex.page}:${ex.line}: ${cmd}`;
      if (r.code !== want) {
        problems.push(`${where}: exit ${r.code}, the page says ${want}; stderr: ${r.stderr.trim().slice(0, 400)}`);
        continue;
      }
      if (ex.page.startsWith('docs/commands/') && !pageStatuses(ex.page).has(want))
        problems.push(`${where}: exits ${want}, which its "## Exit status" does not list`);
      const printed = r.stdout.split('\n').map((l) => l.trimEnd());
      for (const l of (shown ?? []).map((s) => s.trimEnd()).filter((s) => s.trim() && s.trim() !== '...')) {
        const cut = l.endsWith('...') ? l.slice(0, -3).replace(/,\s*$/, '') : null;
        if (!printed.some((p) => (cut !== null ? p.startsWith(cut) : p === l)))
          problems.push(`${where}: the page shows a line the command does not print:\n    ${l}`);
      }
    }
  } finally {
    for (const s of sims.values()) await s.stop();
  }
  return problems;
}

test('every shell example of the pages runs as its page says', { timeout: 300_000 }, async (t) => {
  const all = examples();
  const run = all.filter((e) => !e.skip);
  const skipped = all.filter((e) => e.skip);
  for (const [page, line] of SKIP)
    assert.ok(skipped.some((e) => e.page === page && e.commands.some((c) => c.cmd.includes(line)) ),
      `SKIP names a block of ${page} with "${line}", which the page no longer has`);
  for (const [page, start] of EXIT_STATUS)
    assert.ok(run.some((e) => e.page === page && e.commands.some((c) => c.cmd.startsWith(start))),
      `EXIT_STATUS names "${start}" of ${page}, which the page no longer runs`);
  for (const rel of Object.keys(STAND_INS))
    assert.ok(run.some((e) => e.commands.some((c) => c.cmd.includes(rel.split('/')[0]))),
      `STAND_INS makes ${rel}, which no example names any more`);
  assert.ok(run.length >= 6, `only ${run.length} examples found to run`);
  // Two at a time: each starts its own simulators and store.
  const problems = [];
  let next = 0;
  const worker = async () => {
    while (next < run.length) {
      const k = next++;
      problems.push(...await runExample(run[k], k));
    }
  };
  await Promise.all([worker(), worker()]);
  const commands = run.reduce((n, e) => n + e.commands.length, 0);
  t.diagnostic(`${run.length} examples run (${commands} commands); ${skipped.length} skipped: ` +
    skipped.map((e) => `${e.page}:${e.line} (${e.skip})`).join('; '));
  assert.deepEqual(problems, []);
});

// sim.md's "## Ground truth" names every field of a truth line.
test('sim.md names every field the truth file writes', async () => {
  const truth = path.join(dir, 'truth.jsonl');
  const sim = await startSim([...SIM, '--truth', truth]);
  try {
    const r = await runCli(['run', sim.url, '-n', '1', '--max-tokens', '4', '--telemetry', 'none', '--no-progress',
      '--db', path.join(dir, 'truth.db')]);
    assert.equal(r.code, 0, r.stderr);
  } finally {
    await sim.stop();
  }
  const line = JSON.parse(readFileSync(truth, 'utf8').trim().split('\n').at(-1));
  const page = readFileSync(path.join(REPO_ROOT, 'docs', 'commands', 'sim.md'), 'utf8');
  const section = page.split(/^## Ground truth$/m)[1].split(/^## /m)[0];
  const named = new Set([...section.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]));
  const fields = [...Object.keys(line), ...Object.keys(line.chunks[0])];
  assert.deepEqual(fields.filter((f) => !named.has(f)), [], 'truth fields sim.md does not name');
});

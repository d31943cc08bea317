// Every kind of --json document the program prints, each with the section
// of docs/json.md that describes it: the golden outputs (every command on
// the fixed store) and live runs of what the goldens do not hold (a sweep
// and a soak against the simulator, a sharded group, frontier and compare
// of two sweeps, kernels, fit, import, training runs). Used by
// json_keys.test.mjs.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { llamaModel as ggufLlama, writeGguf } from './gguf.mjs';
import { BIN, REPO_ROOT, runCli, startSim } from './helpers.mjs';

const prof = path.join(REPO_ROOT, 'profiles', 'rtx4090-workstation.ini');
const ex = (f) => path.join(REPO_ROOT, 'examples', f);

// docs/json.md's section of each golden case (tests/golden/expected/NAME.txt).
const GOLDEN_SECTIONS = {
  runs_json: 'The runs list',
  show_1_json: 'The run document',
  show_grp_json: 'The group document',
  export_requests_json: 'Exports',
  export_summary_json: 'The run document',
  export_samples_json: 'Exports',
  cost_json: 'cost',
  cost_cloud_json: 'cost',
  compare_json: 'compare',
  compare_group_json: 'compare',
  roofline_json: 'roofline',
  gaps_json: 'gaps',
  gaps_profiler_json: 'gaps',
  lockin_json: 'lockin',
  lockin_fp16_json: 'lockin',
  decide_json: 'decide',
  env_json: 'The environment fingerprint',
  doctor_json: 'doctor',
  monitor_json: 'monitor',
  compare_train_json: 'compare of two training runs',
  cost_train_json: 'cost of a training run',
  show_train_json: 'The training document',
};

async function json(args, opts = {}) {
  const r = await runCli(args, { timeoutMs: 120_000, ...opts });
  assert.ok([0, 3].includes(r.code), `truecost ${args.join(' ')}: ${r.code}: ${r.stderr}`);
  return r.stdout.trim().split('\n').filter((l) => l.startsWith('{') && l.endsWith('}')).length > 1
    ? r.stdout.trim().split('\n').map((l) => JSON.parse(l)) // one object per line (monitor)
    : JSON.parse(r.stdout);
}

function goldenDocuments() {
  const g = path.join(REPO_ROOT, 'tests', 'golden', 'expected');
  return readdirSync(g).filter((f) => /json\.txt$/.test(f)).map((f) => {
    const name = f.replace(/\.txt$/, '');
    assert.ok(GOLDEN_SECTIONS[name], `tests/golden/expected/${f}: which section of docs/json.md? (json_docs.mjs)`);
    // "exit N", "--- stdout", the output, "--- stderr", what it said.
    const text = readFileSync(path.join(g, f), 'utf8').split('--- stdout\n')[1].split('--- stderr')[0].trim();
    let doc;
    try {
      doc = JSON.parse(text);
    } catch {
      doc = text.split('\n').map((l) => JSON.parse(l)); // one object per line
    }
    return { where: f, section: GOLDEN_SECTIONS[name], doc };
  });
}

const FAKE = process.env.TC_FAKE_LIB_DIR || path.join(REPO_ROOT, 'build', 'tests', 'fake');
const FIX = process.env.TC_FIXTURES_DIR || path.join(REPO_ROOT, 'tests', 'fixtures');
const quiet = ['--telemetry', 'none', '--no-progress'];

// Runs against two simulators (B's batch slowdown makes its sweep's knee).
async function measured(dir, db, add) {
  const sim = await startSim(['--ttft-ms', '1', '--prefill-tps', '100000', '--decode-tps', '400']);
  const slow = await startSim(['--ttft-ms', '1', '--prefill-tps', '100000', '--decode-tps', '400',
    '--batch-slowdown', '2']);
  try {
    for (const [label, s] of [['A', sim], ['B', slow]])
      await add(`sweep ${label}`, 'The sweep document', ['sweep', s.url, '--db', db, '-c', '1,2,4', '-n', '6',
        '--max-tokens', '16', '--warmup', '0', '--label', label, ...quiet, '--slo', 'ttft=50ms', '--json']);
    await add('sweep (rate)', 'The sweep document', ['sweep', sim.url, '--db', db, '--rates', '5,10', '--duration',
      '2', '--max-tokens', '8', '--label', 'R', ...quiet, '--json']);
    await add('soak', 'The soak document', ['soak', sim.url, '--db', db, '--duration', '6s', '--window', '2s', '-c',
      '2', '--max-tokens', '16', ...quiet, '--max-drift', '1000', '--json']);
    await add('run (open loop, slo)', 'The run document', ['run', sim.url, '--db', db, '--rate', '40', '-n', '8',
      '--max-concurrency', '4', '--max-tokens', '8', '--label', 'OL', ...quiet, '--slo', 'ttft=1s', '--json']);
    await add('run (synthetic prompts)', 'The run document', ['run', sim.url, '--db', db, '--isl', '20', '--osl',
      '8', '-n', '3', '--label', 'W', ...quiet, '--json']);
    await add('run (fake NVML)', 'The run document', ['run', sim.url, '--db', db, '-n', '3', '--max-tokens', '8',
      '--label', 'NV', '--telemetry', 'nvml', '--nvml-lib', path.join(FAKE, 'libfake_nvml.so'), '--sample-ms', '20',
      '--no-progress', '--json']);
    // a sharded group: two shards that start together
    const at = new Date(Date.now() + 1500).toISOString();
    const shards = await Promise.all([1, 2].map((i) => runCli(['run', sim.url, '--db', db, '-n', '8', '-c', '2',
      '--max-tokens', '8', '--label', 'fleet', '--shard', `${i}/2`, '--start-at', at, ...quiet, '--json'],
    { timeoutMs: 60_000 })));
    for (const r of shards) assert.equal(r.code, 0, r.stderr);
  } finally {
    await sim.stop?.();
    await slow.stop?.();
  }
}

function llamaModel(dir) {
  const model = path.join(dir, 'model');
  mkdirSync(model);
  writeFileSync(path.join(model, 'config.json'), JSON.stringify({
    architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096, intermediate_size: 11008,
    max_position_embeddings: 4096, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32,
    rms_norm_eps: 1e-5, tie_word_embeddings: false, torch_dtype: 'float16', vocab_size: 32000,
  }));
  const vllm = path.join(dir, 'vllm.log');
  writeFileSync(vllm, ['INFO [gpu_model_runner.py:1234] Model loading took 12.5523 GiB and 4.5 seconds',
    'INFO [gpu_worker.py:227] Available KV cache memory: 50.00 GiB',
    'INFO [kv_cache_utils.py:634] GPU KV cache size: 102,400 tokens',
    'INFO [kv_cache_utils.py:637] Maximum concurrency for 4,096 tokens per request: 25.00x', ''].join('\n'));
  const llama = path.join(dir, 'llama.log');
  writeFileSync(llama, ['load_tensors:        CUDA0 model buffer size =  3577.56 MiB',
    'llama_kv_cache: size =  256.00 MiB (  2048 cells,  32 layers,  1/1 seqs), K (f16): 128.00 MiB',
    'llama_context:        CUDA0 compute buffer size =   164.01 MiB', ''].join('\n'));
  const gguf = path.join(dir, 'small.gguf');
  const m = ggufLlama();
  writeGguf(gguf, m.meta, m.tensors, { withData: false }); // the header alone: fit reads no more
  return { model, vllm, llama, gguf };
}

async function liveDocuments(dir) {
  const db = path.join(dir, 'db');
  const docs = [];
  const add = async (where, section, args, opts) => docs.push({ where, section, doc: await json(args, opts) });
  await measured(dir, db, add);
  await add('show sharded group', 'The run document', ['show', 'fleet', '--db', db, '--json']);
  await add('show sweep', 'The sweep document', ['show', 'A', '--db', db, '--json']);
  await add('export requests (open loop)', 'Exports', ['export', 'OL', '--db', db, '--what', 'requests', '--format',
    'json']);
  await add('export chunks of a group', 'Exports', ['export', 'A', '--db', db, '--what', 'chunks', '--format', 'json']);
  await add('frontier', 'The frontier document', ['frontier', 'A', 'B', '--db', db, '--profile', prof, '--at',
    '20,100', '--claim', '1', '--demand', '1e9', '--slo', 'ttft=50ms', '--json', '--resamples', '1000']);
  await add('compare sweeps', 'The frontier document', ['compare', 'A', 'B', '--db', db, '--profile', prof,
    '--claim', '1', '--json', '--resamples', '1000']);
  await add('cost of a group', 'cost', ['cost', 'A', '--db', db, '--profile', prof, '--json']);
  await add('lockin (running saving)', 'lockin', ['lockin', ex('assessment-lora-8x24gb.ini'),
    '--running-saving-per-month', '2000', '--samples', '1000', '--json']);
  const envs = ['debian-nvidia', 'ubuntu-amd'].map((f) => path.join(dir, `${f}.json`));
  for (const [k, f] of ['debian-nvidia', 'ubuntu-amd'].entries()) {
    const r = await runCli(['env', '--json', '--root', path.join(FIX, 'env', f), '--no-server',
      '--nvml-lib', '/nonexistent/libnvidia-ml.so.1', '--rocm-lib', '/nonexistent/librocm_smi64.so',
      '--nvidia-smi', '/nonexistent/nvidia-smi', '--rocm-smi', '/nonexistent/rocm-smi']);
    assert.equal(r.code, 0, r.stderr);
    writeFileSync(envs[k], r.stdout);
  }
  await add('env --diff', 'The environment fingerprint', ['env', '--diff', ...envs, '--json']);
  await add('kernels', 'The kernels document', ['kernels', ex('kernels-nsys-example.csv'),
    ex('kernels-rocprofv3-example.csv'), '--json']);
  const { model, vllm, llama, gguf } = llamaModel(dir);
  await add('fit gguf', 'The fit document', ['fit', gguf, '--vram', '24', '--json']);
  await add('fit', 'The fit document', ['fit', model, '--gpu', 'RTX 4090', '--json']);
  await add('fit lora', 'The fit document', ['fit', model, '--gpu', 'RTX 4090', '--task', 'lora', '--json']);
  await add('fit --server-log vllm --run', 'The fit document', ['fit', model, '--gpu', 'H100 SXM', '--server-log',
    vllm, '--run', 'NV', '--db', db, '--json']);
  await add('fit --server-log llama.cpp', 'The fit document', ['fit', model, '--server-log', llama, '--json']);
  await add('import', 'import', ['import', db, '--db', path.join(dir, 'copy'), '--json']);
  // training runs, of truecost sim train
  const metrics = path.join(dir, 'metrics.jsonl');
  await add('train', 'The training document', ['train', '--db', db, '--telemetry', 'none', '--json', '--params',
    '1e6', '--label', 'T', '--', BIN, 'sim', 'train', '--steps', '12', '--step-ms', '10', '--format', 'hf',
    '--warn-every', '4', '--oom-at', '12']);
  await add('show train', 'The training document', ['show', 'T', '--db', db, '--json']);
  await json(['train', '--db', db, '--telemetry', 'none', '--json', '--label', 'T2', '--', BIN, 'sim', 'train',
    '--steps', '12', '--step-ms', '12']);
  await add('cost train', 'cost of a training run', ['cost', 'T2', '--db', db, '--profile', prof, '--json']);
  await add('compare train', 'compare of two training runs', ['compare', 'T', 'T2', '--db', db, '--profile', prof, '--json',
    '--resamples', '1000']);
  await add('train --metrics', 'The training document', ['train', '--db', db, '--telemetry', 'none', '--json',
    '--metrics', metrics, '--', BIN, 'sim', 'train', '--steps', '8', '--step-ms', '10', '--metrics', metrics]);
  return docs;
}

/** [{where, section, doc}]: every kind of document, dir a scratch directory. */
export async function allDocuments(dir) {
  return [...goldenDocuments(), ...await liveDocuments(dir)];
}

// truecost fit: the command line and its errors; model files the test
// writes itself, counted by hand; the first seed's boundary for 24 GB
// cards; a stored run's measured peak; and a real engine: node-llama-cpp
// (tests/node, the llama.cpp it ships) loads GGUF files this test writes,
// at two context sizes, and llama.cpp's own model and KV buffer sizes must
// agree with the prediction within 2%.
//
// Without tests/node/node_modules the engine test is skipped, unless
// TC_REQUIRE_NPM_CLIENTS=1, in which case a missing package fails it.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

import { GGML, llamaModel, rng, writeGguf, writeSafetensors } from './gguf.mjs';
import { REPO_ROOT, expectExit, runCli, testScope } from './helpers.mjs';

const MIB = 1048576;
const GIB = 1073741824;
const FAKE = process.env.TC_FAKE_LIB_DIR ?? path.resolve(REPO_ROOT, 'build/tests/fake');
const NODE_DIR = path.join(REPO_ROOT, 'tests', 'node');
const REQUIRED = process.env.TC_REQUIRE_NPM_CLIENTS === '1';
const CONTEXTS = [512, 2048];

const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * (Math.abs(b) + 1), `${what}: ${a} != ${b}`);

async function fitJson(args) {
  const r = await runCli(['fit', ...args, '--json'], { timeoutMs: 30_000 });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const term = (doc, name) => doc.terms.find((t) => t.name === name)?.bytes;

// Llama-2's config.json as Hugging Face ships it (the fields fit reads).
function llamaConfig(dir, { hidden, layers, heads, ffn }) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({
    architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: hidden,
    intermediate_size: ffn, max_position_embeddings: 4096, num_attention_heads: heads,
    num_hidden_layers: layers, num_key_value_heads: heads, rms_norm_eps: 1e-5,
    tie_word_embeddings: false, torch_dtype: 'float16', vocab_size: 32000,
  }));
  return dir;
}

// Parameters of a Llama layout, counted here: attention 4 h^2, MLP 3 h f,
// two norms; embedding and head V h each; the final norm.
const llamaParams = (h, l, f) => l * (4 * h * h + 3 * h * f + 2 * h) + 2 * 32000 * h + h;

test('fit: usage errors and unreadable or damaged files', async (t) => {
  const sc = testScope(t, 'truecost-fit-');
  const dir = sc.dir();
  await expectExit(['fit'], 1, { stderr: /fit: which model\?/ });
  await expectExit(['fit', 'x', '--task', 'train'], 1, { stderr: /--task: 'train' is not one of serve\|lora\|qlora\|full/ });
  await expectExit(['fit', 'x', '--lora-rank', '8'], 1, { stderr: /--lora-rank does not apply to --task serve/ });
  await expectExit(['fit', 'x', '--task', 'full', '--ctx', '8'], 1, { stderr: /--ctx does not apply to --task full/ });
  await expectExit(['fit', 'x', '--lora-targets', 'q,,v', '--task', 'lora'], 1, { stderr: /--lora-targets/ });
  await expectExit(['fit', 'x', '--utilization', '1.5'], 1, { stderr: /--utilization/ });
  await expectExit(['fit', 'x', '--db', 'y'], 1, { stderr: /--db is read with --run/ });
  await expectExit(['fit', path.join(dir, 'missing.gguf')], 2, { stderr: /missing\.gguf: cannot open/ });
  const text = path.join(dir, 'notes.txt');
  writeFileSync(text, 'hello, not a model\n');
  await expectExit(['fit', text], 1, { stderr: /notes\.txt: offset 0: not a model file/ });
  // A GGUF cut short in its metadata, and one that declares 2^60 tensors.
  const m = llamaModel();
  const whole = path.join(dir, 'whole.gguf');
  writeGguf(whole, m.meta, m.tensors);
  const bytes = readFileSync(whole);
  writeFileSync(path.join(dir, 'cut.gguf'), bytes.subarray(0, 2000)); // inside the vocabulary
  await expectExit(['fit', path.join(dir, 'cut.gguf')], 1, { stderr: /cut\.gguf: offset \d+: .*(past the end of the file|more than the file has left)/ });
  const huge = Buffer.from(bytes.subarray(0, 4096));
  huge.writeBigUInt64LE(1n << 60n, 8);
  writeFileSync(path.join(dir, 'huge.gguf'), huge);
  await expectExit(['fit', path.join(dir, 'huge.gguf')], 1, { stderr: /huge\.gguf: offset 8: declares 1152921504606846976 tensors/ });
  // A safetensors header over the format's 100 MB.
  const st = Buffer.alloc(64, 0x20);
  st.writeBigUInt64LE(200_000_000n, 0);
  st[8] = 0x7b;
  writeFileSync(path.join(dir, 'big.safetensors'), st);
  await expectExit(['fit', path.join(dir, 'big.safetensors')], 1, { stderr: /offset 0: a header of 200000000 bytes, over safetensors' limit/ });
  // A card the table does not know; a config without a dtype.
  const cfg = llamaConfig(path.join(dir, 'l7'), { hidden: 4096, layers: 32, heads: 32, ffn: 11008 });
  await expectExit(['fit', cfg, '--gpu', '7900 XTX'], 1, { stderr: /GPU '7900 XTX' is not in the table; did you mean 'RX 7900 XTX'\?/ });
  const nodtype = path.join(dir, 'nodtype.json');
  const c = JSON.parse(readFileSync(path.join(cfg, 'config.json'), 'utf8'));
  delete c.torch_dtype;
  writeFileSync(nodtype, JSON.stringify(c));
  await expectExit(['fit', nodtype], 1, { stderr: /gives no dtype \(torch_dtype\): give --dtype/ });
});

test('fit: the first seed\'s boundary for 24 GB cards, from config.json, by hand', async (t) => {
  const sc = testScope(t, 'truecost-fit-');
  const dir = sc.dir();
  const l7 = llamaConfig(path.join(dir, 'l7'), { hidden: 4096, layers: 32, heads: 32, ffn: 11008 });
  const l13 = llamaConfig(path.join(dir, 'l13'), { hidden: 5120, layers: 40, heads: 40, ffn: 13824 });
  const p7 = llamaParams(4096, 32, 11008);
  const p13 = llamaParams(5120, 40, 13824);
  assert.equal(p7, 6738415616); // "6.74 B"

  // 7B FP16 serving on an RTX 4090 and an RX 7900 XTX side by side.
  const serve = await fitJson([l7, '--gpu', 'RTX 4090', '--gpu', 'RX 7900 XTX']);
  assert.equal(serve.model.parameters, p7);
  assert.equal(serve.model.parameters_from, 'config');
  assert.equal(serve.kv_bytes_per_token, 2 * 32 * 32 * 128 * 2);
  assert.equal(serve.kv_bytes_per_token, 524288);
  const compute = 8192 * (2 * 11008 + 2 * 4096) * 2 + 4 * 256 * 32000 * 4; // vLLM's profile
  near(serve.need_bytes, p7 * 2 + 524288 * 4096 + compute + GIB, 'need');
  assert.deepEqual(serve.cards.map((c) => [c.name, c.verdict]), [['RTX 4090', 'fits'], ['RX 7900 XTX', 'fits']]);
  near(serve.cards[0].capacity_bytes, 24564 * MIB, 'RTX 4090 as the driver reports it');
  near(serve.cards[0].budget_bytes, 24564 * MIB * 0.9, 'budget at 0.9');

  // 13B at INT8 and INT4 fits; at FP16 it does not, and two cards do.
  const emb = 2 * 32000 * 5120;
  const kv13 = 2 * 40 * 40 * 128 * 2 * 4096;
  const c13 = 8192 * (2 * 13824 + 2 * 5120) * 2 + 4 * 256 * 32000 * 4;
  const int8 = await fitJson([l13, '--dtype', 'int8', '--gpu', 'RTX 4090']);
  near(term(int8, 'weights'), (p13 - emb) * 1 + emb * 2, 'int8 weights');
  near(int8.need_bytes, (p13 - emb) + emb * 2 + kv13 + c13 + GIB, 'int8 need');
  assert.equal(int8.verdict, 'fits');
  const int4 = await fitJson([l13, '--dtype', 'int4', '--gpu', 'RTX 4090']);
  near(term(int4, 'weights'), (p13 - emb) * (0.5 + 2 / 128) + emb * 2, 'int4 weights');
  assert.equal(int4.verdict, 'fits');
  const fp16 = await fitJson([l13, '--gpu', 'RTX 4090']);
  assert.equal(fp16.verdict, 'does not fit');
  assert.equal(fp16.cards[0].largest.gpus_needed, 2);

  // 7B LoRA fits: rank 16 on q, k, v, o; 16 bytes per trained parameter;
  // Korthikanti's activations of 1 x 512 tokens.
  const lora = await fitJson([l7, '--task', 'lora', '--vram', '24']);
  const trained = 32 * 4 * 16 * (4096 + 4096);
  assert.equal(lora.trainable_parameters, trained);
  const act = 32 * 512 * 4096 * (34 + (5 * 32 * 512) / 4096) + 4 * 512 * 32000;
  near(term(lora, 'activations'), act, 'activations');
  near(lora.need_bytes, p7 * 2 + trained * 16 + act + GIB, 'lora need');
  assert.equal(lora.verdict, 'fits');
  assert.ok(lora.cards[0].largest.micro_batch >= 1);

  // 7B full training does not: mixed-precision AdamW's 16 bytes per
  // parameter, and the seed's 16-bit count (8 bytes) neither.
  const full = await fitJson([l7, '--task', 'full', '--vram', '24']);
  near(term(full, 'weights') + term(full, 'gradients') + term(full, 'optimizer_states'), 16 * p7, '16 B/param');
  assert.equal(full.verdict, 'does not fit');
  assert.equal(full.cards[0].largest.micro_batch, 0);
  const seed = await fitJson([l7, '--task', 'full', '--optimizer', 'adamw-bf16', '--vram', '24']);
  near(term(seed, 'optimizer_states'), 4 * p7, 'the seed\'s 28 GB of 16-bit states at 7e9');
  assert.equal(seed.verdict, 'does not fit');
  const txt = await runCli(['fit', l7, '--task', 'full', '--vram', '24']);
  assert.match(txt.stdout, /does not fit/);
  assert.match(txt.stdout, /--optimizer adamw-bf16/);
});

test('fit: GGUF and safetensors files written here give their exact weight bytes', async (t) => {
  const sc = testScope(t, 'truecost-fit-');
  const dir = sc.dir();
  const m = llamaModel({ types: { embd: 'Q4_K', attn: 'Q8_0', ffn: 'Q6_K', out: 'BF16' } });
  const file = path.join(dir, 'q.gguf');
  writeGguf(file, m.meta, m.tensors, { withData: false }); // the header alone: never read past it
  const want = m.tensors.reduce((s, x) => s + x.bytes, 0);
  const doc = await fitJson([file]);
  assert.equal(doc.model.weight_bytes, want);
  assert.equal(doc.model.parameters, m.tensors.reduce((s, x) => s + x.dims.reduce((a, b) => a * b, 1), 0));
  assert.deepEqual(doc.model.tensor_types.map((x) => x.type).sort(), ['BF16', 'F32', 'Q4_K', 'Q6_K', 'Q8_0']);
  const q6 = doc.model.tensor_types.find((x) => x.type === 'Q6_K');
  assert.equal(q6.bytes, 4 * 3 * (256 * 768 / 256) * GGML.Q6_K.bytes); // 4 layers x 3 FFN matrices
  assert.equal(doc.workload.engine, 'llama.cpp');
  assert.equal(doc.kv_bytes_per_token, 2 * 4 * 2 * 64 * 2);

  const st = writeSafetensors(path.join(dir, 'model.safetensors'), [
    { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [1000, 64], bytesPer: 2 },
    { name: 'model.layers.0.self_attn.q_proj.weight', dtype: 'F16', shape: [64, 64], bytesPer: 2 },
    { name: 'model.norm.weight', dtype: 'F32', shape: [64], bytesPer: 4 },
    { name: 'lm_head.weight', dtype: 'F8_E4M3', shape: [1000, 64], bytesPer: 1 },
  ]);
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({
    model_type: 'llama', hidden_size: 64, intermediate_size: 128, num_attention_heads: 4,
    num_key_value_heads: 2, num_hidden_layers: 1, vocab_size: 1000, torch_dtype: 'bfloat16',
  }));
  const s = await fitJson([path.join(dir, 'model.safetensors')]);
  assert.equal(s.model.weight_bytes, st.reduce((a, x) => a + x.bytes, 0));
  assert.equal(s.model.parameters_from, 'tensors');
  assert.equal(s.model.config, true);
  assert.equal(s.kv_bytes_per_token, 2 * 1 * 2 * 16 * 2);
  const folder = await fitJson([dir]);
  assert.equal(folder.model.weight_bytes, s.model.weight_bytes);
});

test('fit --server-log: vLLM\'s lines beside the prediction', async (t) => {
  const sc = testScope(t, 'truecost-fit-');
  const dir = sc.dir();
  const l7 = llamaConfig(path.join(dir, 'l7'), { hidden: 4096, layers: 32, heads: 32, ffn: 11008 });
  const log = path.join(dir, 'vllm.log');
  writeFileSync(log, [
    'INFO 05-01 10:00:00 [gpu_model_runner.py:1234] Model loading took 12.5523 GiB and 4.5 seconds',
    'INFO 05-01 10:00:10 [gpu_worker.py:227] Available KV cache memory: 50.00 GiB',
    'INFO 05-01 10:00:10 [kv_cache_utils.py:634] GPU KV cache size: 102,400 tokens',
    'INFO 05-01 10:00:10 [kv_cache_utils.py:637] Maximum concurrency for 4,096 tokens per request: 25.00x',
    '',
  ].join('\n'));
  const doc = await fitJson([l7, '--server-log', log, '--gpu', 'H100 SXM']);
  assert.equal(doc.server_log.engine, 'vllm');
  assert.equal(doc.workload.engine, 'vllm');
  const by = Object.fromEntries(doc.server_log.compare.map((c) => [c.what, c]));
  near(by.weights.reported, 12.5523 * GIB, 'weights reported');
  near(by.kv_bytes_per_token.reported, (50 * GIB) / 102400, 'available / tokens');
  assert.equal(by.kv_bytes_per_token.predicted, 524288);
  assert.ok(Math.abs(by.weights.difference_share) < 0.001, JSON.stringify(by.weights));
  assert.equal(by.kv_tokens.reported, 102400);
  assert.equal(typeof by.kv_tokens.predicted, 'number');
  await expectExit(['fit', l7, '--server-log', l7 + '/config.json'], 1, { stderr: /none of llama\.cpp's or vLLM's memory lines/ });
});

test('fit --run: the peak device memory a stored run measured, beside the prediction', async (t) => {
  const sc = testScope(t, 'truecost-fit-');
  const dir = sc.dir();
  const db = path.join(dir, 'db');
  const sim = await sc.sim(['--ttft-ms', '5', '--decode-tps', '200']);
  const run = await runCli(['run', sim.url, '--db', db, '-n', '3', '--max-tokens', '16', '--label', 'fitrun',
    '--telemetry', 'nvml', '--nvml-lib', path.join(FAKE, 'libfake_nvml.so'), '--sample-ms', '20', '--no-progress'],
  { timeoutMs: 60_000 });
  assert.equal(run.code, 0, run.stderr);
  const l7 = llamaConfig(path.join(dir, 'l7'), { hidden: 4096, layers: 32, heads: 32, ffn: 11008 });
  const doc = await fitJson([l7, '--run', 'fitrun', '--db', db, '--gpu', 'H100 SXM']);
  assert.equal(doc.run.label, 'fitrun');
  assert.equal(doc.run.simulated, true);
  const d = doc.run.devices[0];
  // The fake NVML reports 10 GiB in use (v2, the reserved 512 MiB apart).
  assert.equal(d.peak_mem_bytes, 10 * GIB);
  near(d.difference_bytes, 10 * GIB - doc.need_bytes, 'measured - predicted');
  await expectExit(['fit', l7, '--run', 'nosuchrun', '--db', db], 2, { stderr: /nosuchrun/ });
});

// ---- the real engine --------------------------------------------------------

let llamaPkg = null;
let loadError = null;
let skip = false;
if (!existsSync(path.join(NODE_DIR, 'node_modules', 'node-llama-cpp')) && !REQUIRED) {
  skip = 'tests/node/node_modules/node-llama-cpp is missing: run `npm ci` in tests/node (set TC_REQUIRE_NPM_CLIENTS=1 to make this a failure)';
} else {
  try {
    const require = createRequire(path.join(NODE_DIR, 'package.json'));
    llamaPkg = await import(pathToFileURL(require.resolve('node-llama-cpp')).href);
  } catch (e) {
    loadError = new Error(`cannot load node-llama-cpp from ${NODE_DIR} (run \`npm ci\` there): ${e.message}`);
  }
}

// llama.cpp's own figures, read here with the test's own patterns: the
// model buffers (repacked copies apart: they duplicate mapped weights), the
// KV buffers and the compute buffers, in bytes.
function llamaReported(log) {
  const sum = (re, keep = () => true) => [...log.matchAll(re)]
    .filter((m) => keep(m[1])).reduce((s, m) => s + Number(m[2]) * MIB, 0);
  return {
    model: sum(/(\S+) model buffer size =\s+([\d.]+) MiB/g, (dev) => !/REPACK|AMX/.test(dev)),
    kv: sum(/(\S+) KV buffer size =\s+([\d.]+) MiB/g),
    compute: sum(/(\S+) compute buffer size =\s+([\d.]+) MiB/g),
  };
}

test('fit --server-log against llama.cpp itself (node-llama-cpp 3.21.1): weights and KV cache within 2%', { skip, timeout: 600_000 }, async (t) => {
  if (loadError) throw loadError;
  const sc = testScope(t, 'truecost-fit-');
  const dir = sc.dir();
  const { getLlama, LlamaLogLevel } = llamaPkg;
  let log = '';
  const llama = await getLlama({
    gpu: false, build: 'never', logLevel: LlamaLogLevel.info,
    logger: (_level, message) => { log += message.endsWith('\n') ? message : `${message}\n`; },
  });
  t.after(() => llama.dispose());
  const variants = [
    { name: 'f16', types: { embd: 'F16', attn: 'F16', ffn: 'F16', out: 'F16' }, want: ['F16', 'F32'] },
    { name: 'mixed', types: { embd: 'F16', attn: 'Q8_0', ffn: 'Q4_0', out: 'Q8_0' }, want: ['F16', 'F32', 'Q4_0', 'Q8_0'] },
  ];
  for (const v of variants) {
    const m = llamaModel({ types: v.types });
    const file = path.join(dir, `${v.name}.gguf`);
    writeGguf(file, m.meta, m.tensors, { rand: rng(7) });
    log = '';
    const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
    for (const ctx of CONTEXTS) {
      const context = await model.createContext({ contextSize: ctx, sequences: 1 });
      await context.dispose();
    }
    await model.dispose();
    // llama.cpp's lines reach the logger through a queue, so they may land
    // after the awaits: wait for both contexts' compute lines, then cut the
    // log at each context's first line.
    for (let i = 0; i < 200 && (log.match(/compute buffer size =/g) ?? []).length < CONTEXTS.length; i++)
      await sleep(50);
    const [loading, ...contexts] = log.split(/(?=^llama_context: constructing llama_context)/m);
    assert.equal(contexts.length, CONTEXTS.length, `one part per context:\n${log}`);
    for (const [k, ctx] of CONTEXTS.entries()) {
      const logFile = path.join(dir, `${v.name}-${ctx}.log`);
      writeFileSync(logFile, loading + contexts[k]);
      const seen = llamaReported(loading + contexts[k]);
      assert.ok(seen.model > 0 && seen.kv > 0, `llama.cpp printed its buffers:\n${log}`);
      const doc = await fitJson([file, '--server-log', logFile, '--ctx', String(ctx)]);
      assert.deepEqual(doc.model.tensor_types.map((x) => x.type).sort(), v.want);
      assert.equal(doc.model.weight_bytes, m.tensors.reduce((s, x) => s + x.bytes, 0));
      assert.equal(doc.server_log.kv_cells, ctx);
      near(doc.server_log.model_bytes, seen.model, 'the log read as the test reads it');
      near(doc.server_log.kv_bytes, seen.kv, 'KV read as the test reads it');
      const weights = term(doc, 'weights');
      const kv = term(doc, 'kv_cache');
      assert.ok(Math.abs(weights - seen.model) / seen.model < 0.02,
        `${v.name} ctx ${ctx}: weights predicted ${weights}, llama.cpp ${seen.model}`);
      assert.ok(Math.abs(kv - seen.kv) / seen.kv < 0.02,
        `${v.name} ctx ${ctx}: KV predicted ${kv}, llama.cpp ${seen.kv}`);
      const by = Object.fromEntries(doc.server_log.compare.map((c) => [c.what, c]));
      assert.ok(Math.abs(by.weights.difference_share) < 0.02);
      assert.ok(Math.abs(by.kv_cache.difference_share) < 0.02);
      t.diagnostic(`${v.name} ctx ${ctx}: weights ${weights} vs ${seen.model}, KV ${kv} vs ${seen.kv}, ` +
        `compute ${term(doc, 'compute_buffer')} vs ${seen.compute} (an estimate, not checked)`);
    }
  }
});


// Where the server said the model sits (Ollama's /api/ps size and
// size_vram, stored with the run's environment): a model partly in CPU
// memory is flagged, since the run's speed is then not the card's.
test('run stores how much of the model sits in device memory; show flags a spilled model', async (t) => {
  const sc = testScope(t, 'truecost-spill-');
  const db = path.join(sc.dir(), 'db');
  const RUN = ['-n', '2', '--max-tokens', '8', '--warmup', '0', '--telemetry', 'none', '--no-progress'];
  for (const [label, args] of [['whole', []], ['spilled', ['--cpu-offload', '0.25']]]) {
    const sim = await sc.sim(['--ttft-ms', '1', '--decode-tps', '1000', ...args]);
    const r = await runCli(['run', sim.url, '--db', db, ...RUN, '--label', label]);
    assert.equal(r.code, 0, r.stderr);
  }
  const gib = (b) => Number((b / 2 ** 30).toPrecision(3));
  const model = async (label) =>
    JSON.parse((await runCli(['show', label, '--db', db, '--json'])).stdout).environment.server.model;
  const whole = await model('whole');
  assert.equal(whole.size_vram_bytes, whole.size_bytes);
  let text = (await runCli(['show', 'whole', '--db', db])).stdout;
  assert.match(text, new RegExp(`model memory: all ${gib(whole.size_bytes)} GiB in device memory`));
  assert.doesNotMatch(text, /SPILLED/);
  const spilled = await model('spilled');
  const off = spilled.size_bytes - spilled.size_vram_bytes;
  assert.ok(Math.abs(off / spilled.size_bytes - 0.25) < 1e-6, `${off} of ${spilled.size_bytes}`);
  text = (await runCli(['show', 'spilled', '--db', db])).stdout;
  assert.ok(text.includes(`model memory: SPILLED: ${gib(spilled.size_vram_bytes)} of ${gib(spilled.size_bytes)} GiB in device memory, ${gib(off)} GiB (25%) in CPU memory:`), text);
  assert.match(text, /this run's speed is not the card's alone/);
});

// Every command's output, text and JSON, on fixed inputs: the stored runs of
// tests/golden/runs.db (made once by tests/golden/make-fixture.sh), the
// example profiles, assessments and operator tables, and the env/doctor/sysfs
// fixture trees. The output must stay byte for byte what it was: these are
// contracts users script against. After a deliberate change, regenerate with
//   TC_GOLDEN_UPDATE=1 node --test tests/integration/golden.test.mjs
// and read the diff before committing it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { REPO_ROOT, runCli, tempDir } from './helpers.mjs';

const GOLDEN = path.join(REPO_ROOT, 'tests', 'golden');
const FIX = process.env.TC_FIXTURES_DIR || path.join(REPO_ROOT, 'tests', 'fixtures');
const FAKE = process.env.TC_FAKE_LIB_DIR || path.join(REPO_ROOT, 'build', 'tests', 'fake');
const UPDATE = process.env.TC_GOLDEN_UPDATE === '1';
const ex = (f) => path.join(REPO_ROOT, 'examples', f);
const prof = (f) => path.join(REPO_ROOT, 'profiles', f);
const NO_GPU = ['--nvml-lib', '/nonexistent/libnvidia-ml.so.1', '--rocm-lib', '/nonexistent/librocm_smi64.so',
  '--nvidia-smi', '/nonexistent/nvidia-smi', '--rocm-smi', '/nonexistent/rocm-smi'];
const GAPS = ['gaps', '--ops', ex('ops-fp16-inference.csv'), '--support', ex('support-rocm-example.csv')];
const LOCKIN = ['lockin', ex('assessment-lora-8x24gb.ini')];
const DECIDE = ['decide', ex('assessment-lora-8x24gb.ini')];
const COSTS = ['--profile-a', prof('rtx4090-workstation.ini'), '--profile-b', prof('rx7900xtx-workstation.ini')];

// name -> arguments; 'DB' and 'GAPSJSON' are filled in per run.
const CASES = {
  runs: ['runs'],
  runs_json: ['runs', '--json'],
  show_1: ['show', '1'],
  show_1_json: ['show', '1', '--json'],
  show_grp: ['show', 'grp'],
  show_grp_json: ['show', 'grp', '--json'],
  export_requests_csv: ['export', '2', '--what', 'requests'],
  export_requests_json: ['export', '2', '--what', 'requests', '--format', 'json'],
  export_chunks_csv: ['export', '1', '--what', 'chunks'],
  export_summary_json: ['export', '1', '--what', 'summary', '--format', 'json'],
  export_summary_csv: ['export', 'grp', '--what', 'summary'],
  export_samples_csv: ['export', '1', '--what', 'samples'],
  export_samples_json: ['export', '1', '--what', 'samples', '--format', 'json'],
  cost: ['cost', '1', '--profile', prof('rtx4090-workstation.ini')],
  cost_json: ['cost', '1', '--profile', prof('rtx4090-workstation.ini'), '--json'],
  cost_cloud_json: ['cost', 'grp', '--profile', prof('h100-cloud-hourly.ini'), '--json'],
  compare: ['compare', 'nv', 'amd', ...COSTS, '--claim', '5'],
  compare_json: ['compare', 'nv', 'amd', ...COSTS, '--claim', '5', '--json'],
  compare_group_json: ['compare', 'grp', 'amd', '--claim', '2', '--json'],
  roofline: ['roofline', '1', '--gpu', 'RTX 4090', '--model-bytes', '16000000000'],
  roofline_json: ['roofline', '1', '--json', '--model-bytes', '16000000000'],
  roofline_list: ['roofline', '--list'],
  gaps: [...GAPS],
  gaps_json: [...GAPS, '--json'],
  gaps_profiler_json: ['gaps', '--ops', ex('ops-llama7b-lora-profiler.txt'), '--support', ex('support-rocm-example.csv'), '--json'],
  lockin: [...LOCKIN, '--gaps', 'GAPSJSON', '--perf', 'nv', 'amd'],
  lockin_json: [...LOCKIN, '--gaps', 'GAPSJSON', '--perf', 'nv', 'amd', '--json'],
  lockin_fp16_json: ['lockin', ex('assessment-fp16-inference.ini'), '--json'],
  decide: [...DECIDE, '--runs', 'nv', 'amd', '--gaps', 'GAPSJSON'],
  decide_json: [...DECIDE, '--runs', 'nv', 'amd', '--gaps', 'GAPSJSON', '--json'],
  env_json: ['env', '--json', '--root', path.join(FIX, 'env', 'debian-nvidia'), ...NO_GPU],
  env_text: ['env', '--root', path.join(FIX, 'env', 'ubuntu-amd'), ...NO_GPU],
  doctor_json: ['doctor', '--json', '--root', path.join(FIX, 'doctor', 'nvidia-nouveau'), '--no-server', '--user', 'alice', ...NO_GPU.slice(0, 4)],
  doctor_text: ['doctor', '--root', path.join(FIX, 'doctor', 'amd-no-kfd'), '--no-server', '--user', 'alice', ...NO_GPU.slice(0, 4)],
  monitor_json: ['monitor', '--json', '--count', '1', '--sysfs-root', path.join(FIX, 'sysfs', 'rapl-two-packages'), '--backend', 'rapl'],
  // training runs (tests/golden/train.sql, in a store of their own)
  show_train: ['show', 'lora-a', '--db', 'TRAINDB'],
  show_train_json: ['show', 'lora-b', '--db', 'TRAINDB', '--json'],
  cost_train_json: ['cost', 'lora-a', '--db', 'TRAINDB', '--profile', prof('rtx4090-workstation.ini'), '--json'],
  compare_train: ['compare', 'lora-a', 'lora-b', '--db', 'TRAINDB', ...COSTS],
  compare_train_json: ['compare', 'lora-a', 'lora-b', '--db', 'TRAINDB', ...COSTS, '--json', '--resamples', '1000'],
};

// The store of the training cases: made by truecost (its schema), then
// filled from tests/golden/train.sql with the sqlite3 shell.
async function trainStore(dir) {
  const db = path.join(dir, 'train.db');
  await runCli(['train', '--db', db, '--telemetry', 'none', '-q', '--', 'true']);
  const r = spawnSync('sqlite3', [db], { input: readFileSync(path.join(GOLDEN, 'train.sql'), 'utf8'), encoding: 'utf8' });
  assert.equal(r.status, 0, `sqlite3 ${db} < tests/golden/train.sql: ${r.stderr}`);
  return db;
}

// What may differ between machines and builds (paths, the time, the git
// commit truecost was built from, its compiler, optimisation and
// sanitizers: make check runs this under ASan too), replaced before
// comparing; the expected files hold the replaced text.
function normalise(text, dir) {
  return text
    .replace(/"git": "[^"]*"/g, '"git": "<GIT>"')
    .replace(/"compiler": "[^"]*"/g, '"compiler": "<CC>"')
    .replace(/"(optimized|asan)": (true|false)/g, '"$1": "<BUILD>"')
    .replace(/^truecost  (\S+) \([^)]*\).*$/m, 'truecost  $1 (<GIT>), built by <BUILD>')
    .replace(/"time":"[0-9T:.Z-]+"/g, `"time":"<TIME>"`).split(dir).join('<TMP>').split(REPO_ROOT).join('<REPO>').split(FAKE).join('<FAKE>');
}

test('every command prints what it printed before, byte for byte', async () => {
  const dir = tempDir('truecost-golden-');
  try {
    const db = path.join(dir, 'runs.db');
    copyFileSync(path.join(GOLDEN, 'runs.db'), db);
    const gapsJson = path.join(dir, 'gaps.json');
    writeFileSync(gapsJson, (await runCli([...GAPS, '--json'])).stdout);
    const trainDb = await trainStore(dir);
    const env = { TRUECOST_DB: db, XDG_DATA_HOME: dir, HOME: dir, TZ: 'UTC', LC_ALL: 'C' };
    const failures = [];
    for (const [name, args] of Object.entries(CASES)) {
      const argv = args.map((a) => (a === 'GAPSJSON' ? gapsJson : a === 'TRAINDB' ? trainDb : a));
      const r = await runCli(argv, { env });
      const got = normalise(`exit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`, dir);
      const file = path.join(GOLDEN, 'expected', `${name}.txt`);
      if (UPDATE) {
        writeFileSync(file, got);
        continue;
      }
      assert.ok(existsSync(file), `${file} is missing: run with TC_GOLDEN_UPDATE=1`);
      const want = readFileSync(file, 'utf8');
      if (got !== want) failures.push(`${name} (truecost ${argv.join(' ')})\n--- want\n${want}\n--- got\n${got}`);
    }
    assert.deepEqual(failures, [], failures.join('\n\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

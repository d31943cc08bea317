// The README's walkthrough (and the fine-tuning quickstart's rehearsal)
// runs as written: every fenced shell block that starts its own
// simulators is run with bash -e, in a folder of its own
// (profiles/ and examples/ linked in, TRUECOST_DB there, the built truecost
// first on PATH), its fixed ports swapped for free ones. Blocks against
// real servers (nvidia-box, amd-box) cannot run here and are not.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';

import { BIN, REPO_ROOT, testScope } from './helpers.mjs';

const blocksOf = (page) => [...readFileSync(path.join(REPO_ROOT, page), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)]
  .map((m) => m[1]);
const blocks = blocksOf('README.md');
// The walkthroughs that run here: the README's rehearsal (its own
// simulators) and the fine-tuning quickstart's (sim train).
const runnable = [
  ...blocks.filter((b) => /^truecost sim .*&/m.test(b)).map((b) => ['README.md', b]),
  ...blocksOf('docs/quickstart-finetune.md').filter((b) => /truecost sim train/.test(b))
    .map((b) => ['docs/quickstart-finetune.md', b]),
];

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function bash(script, cwd, env) {
  return new Promise((resolve) => {
    const p = spawn('bash', ['-e', '-c', script], { cwd, env });
    let stdout = '', stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => p.kill('SIGKILL'), 120_000);
    p.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

test('the README has a rehearsal block that starts its own simulators', () => {
  assert.ok(runnable.filter(([p]) => p === 'README.md').length >= 1, 'no fenced sh block starts truecost sim');
  assert.ok(runnable.some(([p]) => p !== 'README.md'), 'the fine-tuning quickstart has no rehearsal');
  assert.ok(blocks.some((b) => /truecost sweep http:\/\/nvidia-box/.test(b)), 'the real-platform path leads with sweep');
});

for (const [i, [page, block]] of runnable.entries()) {
  test(`${page} shell block ${i + 1} (simulators) runs as written`, async (t) => {
    const sc = testScope(t, 'truecost-readme-');
    const dir = sc.dir();
    for (const d of ['profiles', 'examples']) symlinkSync(path.join(REPO_ROOT, d), path.join(dir, d));
    let script = block;
    for (const port of new Set((block.match(/127\.0\.0\.1:(\d{4,5})/g) || []).map((x) => x.split(':')[1])))
      script = script.replaceAll(`127.0.0.1:${port}`, `127.0.0.1:${await freePort()}`);
    writeFileSync(path.join(dir, 'block.sh'), script);
    const env = { ...process.env, PATH: `${path.dirname(BIN)}:${process.env.PATH}`, TRUECOST_DB: path.join(dir, 'db') };
    const r = await bash(script, dir, env);
    assert.equal(r.code, 0, `${page} block ${i + 1} failed:\n${r.stderr.slice(-2000)}`);
    // The path's answers: the claim judged at each target, the report, the decision.
    if (/truecost compare .*--claim/.test(block))
      assert.match(r.stdout, /^Claim "A is 5 times more cost-efficient than B" .*: /m);
    if (/-o report\.html/.test(block)) assert.ok(existsSync(path.join(dir, 'report.html')), 'report.html written');
    if (/truecost decide /.test(block))
      assert.match(r.stdout, /^SIMULATED evidence: Decision for .*: (stay|pilot|hybrid|migrate)$/m);
    if (/--kernels kernels\.json/.test(block) && /--step-ms 50/.test(block))
      assert.match(r.stdout, /the profiler's top suspects on the alternative: /);
    // Its simulators were stopped by the block itself (kill %1 %2).
    assert.equal((r.stderr.match(/^truecost sim: stopped after/gm) || []).length, (block.match(/^truecost sim /gm) || []).length);
  });
}

// The options several commands share have one definition each: the same
// name, range and message wherever a command takes them (issue 25, points
// 5, 18 and 22). Each case is refused before any store or server is used.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { expectExit } from './helpers.mjs';

const PROFILE = 'profiles/rtx4090-workstation.ini';

test('--resamples has one range everywhere: 1,000 to 1,000,000 (frontier took 1 and printed an interval excluding its own estimate)', async () => {
  const commands = [
    ['frontier', 'A', '--profile', PROFILE],
    ['compare', 'A', 'B'],
    ['report', 'A'],
  ];
  for (const cmd of commands) {
    for (const n of ['1', '0', '999', '1000001']) {
      await expectExit([...cmd, '--resamples', n], 1, { stderr: new RegExp(`--resamples: ${n} is out of range \\(1000 to 1000000\\)`) });
    }
  }
});

test('--claim has one range everywhere', async () => {
  for (const cmd of [['frontier', 'A', 'B', '--profile', PROFILE], ['compare', 'A', 'B'], ['report', 'A', 'B']]) {
    await expectExit([...cmd, '--claim', '1e7'], 1, { stderr: /--claim: 1e7 is out of range \(1e-06 to 1e\+06\)/ });
    await expectExit([...cmd, '--claim', '0'], 1, { stderr: /--claim: 0 is out of range/ });
  }
});

test('--profile, --profile-a and --profile-b are spelled alike everywhere', async () => {
  // Each command takes all three; a side without a file of its own takes
  // --profile's. The errors below come after parsing: the options exist.
  await expectExit(['compare', 'A', 'B', '--profile-a', PROFILE], 1, {
    stderr: /give both --profile-a and --profile-b \(each platform's own cost profile\), --profile for both, or none/,
  });
  await expectExit(['report', 'A', 'B', '--profile-b', PROFILE], 1, {
    stderr: /give both --profile-a and --profile-b, or --profile for both/,
  });
  await expectExit(['frontier', 'A', '--profile-b', PROFILE], 1, { stderr: /--profile FILE \(or --profile-a\)/ });
  for (const cmd of ['lockin', 'decide']) {
    await expectExit([cmd, 'examples/assessment-lora-8x24gb.ini', '--profile', PROFILE], 1, {
      stderr: /--profile-a\/--profile-b price the runs of/,
    });
  }
});

test('lists, rates and times that are typos get one line naming the input, exit 1', async () => {
  const url = 'http://127.0.0.1:9';
  const cases = [
    [['sweep', url, '-c', ''], /sweep: --concurrency '': empty; expected up to 64 ascending whole numbers/],
    [['sweep', url, '--rates', ''], /sweep: --rates '': empty; expected up to 64 ascending numbers/],
    [['sweep', url, '-c', '1,,2'], /sweep: --concurrency '1,,2': an empty item/],
    [['sweep', url, '--rates', '5,'], /sweep: --rates '5,': an empty item/],
    [['sweep', url, '-c', '1,2', '--points', '4'], /sweep: --points sets how many rates --rates auto chooses; with --concurrency the points are the list itself/],
    [['frontier', 'A', '--profile', PROFILE, '--at', '50,'], /frontier: --at '50,': an empty item/],
    [['compare', 'A', 'B', '--at', ',50'], /compare: --at ',50': an empty item/],
    [['run', url, '--slo', 'e2e=5s,,'], /run: --slo: 'e2e=5s,,' is not an objective/],
    [['run', url, '--rate', 'inf'], /--rate: 'inf' is not a finite number/],
    [['run', url, '--rate', '2e6'], /run: --rate 2e6: expected a number above 0 and at most 1e\+06, e\.g\. --rate 10/],
    [['run', url, '--shard', '1/2', '--label', 'g', '--start-at', '2099-01-01T00:00:00Z'], /--start-at '2099-01-01T00:00:00Z' is more than 24 h from now/],
  ];
  for (const [args, want] of cases) await expectExit(args, 1, { stderr: want });
});

// Shared by the install and docs suites: the subcommands and options that
// `truecost --help` and `truecost CMD --help` print.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SOURCE_DIR = process.env.TC_SOURCE_DIR ||
  join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUILD_DIR = process.env.TC_BUILD_DIR || join(SOURCE_DIR, 'build');
export const BIN = process.env.TRUECOST_BIN || join(BUILD_DIR, 'truecost');

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 60000, ...opts });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  return r;
}

// The subcommands listed under "Commands:" by `truecost --help` ("help CMD"
// is the help line, not a command of its own).
export function subcommands(bin = BIN) {
  const r = run(bin, ['--help']);
  const text = r.stdout.split('\nCommands:\n')[1];
  if (r.status !== 0 || !text) throw new Error(`truecost --help: ${r.status}: ${r.stdout}`);
  const cmds = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) break;
    const m = line.match(/^ {2}([a-z]+) {2,}\S/);
    if (m) cmds.push(m[1]);
  }
  return cmds;
}

// The options CMD --help names: those of its Usage lines and of the lines
// that start with an option (the option list), not options of other
// commands that its prose mentions.
export function helpOptions(cmd, bin = BIN) {
  const r = run(bin, [cmd, '--help']);
  if (r.status !== 0) throw new Error(`truecost ${cmd} --help: ${r.status}`);
  const lines = r.stdout.split('\n');
  const picked = [];
  let usage = true;
  for (const line of lines) {
    if (usage) {
      if (!line.trim()) usage = false;
      else picked.push(line);
    } else if (/^\s+-/.test(line)) {
      picked.push(line.trim().split(/\s{2,}/)[0]); // the option, not its description
    }
  }
  const opts = new Set();
  for (const l of picked)
    for (const m of l.matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])/g)) opts.add(m[1]);
  return [...opts].sort();
}

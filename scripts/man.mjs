#!/usr/bin/env node
// Makes the man page truecost.1 from the Markdown reference: README.md's
// introduction, one section per docs/commands/ page, the file formats, the
// method, the JSON contract, the exit statuses, files and environment.
//   node scripts/man.mjs [--root DIR] [--version V] [--date YYYY-MM-DD] [-o FILE]
// Only the Markdown the docs use is understood (headings, paragraphs, lists,
// fenced code, tables, `code`, **bold**, *italic*, [links](url)); a page or a
// section the page needs that is missing is an error, so the docs and the
// man page cannot drift apart silently.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

// The subcommands, in the order of `truecost --help`.
export const COMMANDS = ['run', 'sweep', 'soak', 'runs', 'show', 'export', 'import', 'cost', 'compare', 'frontier', 'report',
  'roofline', 'gaps', 'fit', 'lockin', 'decide', 'monitor', 'doctor', 'env', 'agent', 'sim'];

function fail(msg) {
  process.stderr.write(`man.mjs: ${msg}\n`);
  process.exit(1);
}

// ---- Markdown blocks -------------------------------------------------------

const FENCE = /^(\s*)```/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const ITEM = /^(\s*)([-*]|\d+\.)\s+(.*)$/;

function indentOf(line) {
  return line.match(/^ */)[0].length;
}

// Splits Markdown text into blocks: heading, para, code, table, list.
export function parseBlocks(text) {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const blocks = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i++;
      continue;
    }
    let m;
    if ((m = line.match(FENCE))) {
      const ind = m[1].length;
      const body = [];
      i++;
      while (i < lines.length && !/^\s*```\s*$/.test(lines[i])) {
        body.push(lines[i].slice(Math.min(ind, indentOf(lines[i]))));
        i++;
      }
      if (i >= lines.length) fail('an unclosed ``` fence');
      i++;
      blocks.push({ type: 'code', lines: body });
    } else if ((m = line.match(HEADING))) {
      blocks.push({ type: 'heading', level: m[1].length, text: m[2].trim() });
      i++;
    } else if (line.startsWith('|')) {
      const rows = [];
      while (i < lines.length && lines[i].startsWith('|')) {
        const cells = lines[i].trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());
        if (!cells.every((c) => /^:?-+:?$/.test(c))) rows.push(cells);
        i++;
      }
      blocks.push({ type: 'table', header: rows[0], rows: rows.slice(1) });
    } else if ((m = line.match(ITEM)) && indentOf(line) < 2) {
      const list = { type: 'list', ordered: /\d/.test(m[2]), items: [] };
      while (i < lines.length && (m = lines[i].match(ITEM)) && indentOf(lines[i]) < 2) {
        const content = m[1].length + m[2].length + 1;
        const body = [m[3]];
        i++;
        while (i < lines.length) {
          const l = lines[i];
          if (!l.trim()) {
            let k = i;
            while (k < lines.length && !lines[k].trim()) k++;
            if (k < lines.length && indentOf(lines[k]) >= 2) {
              for (; i < k; i++) body.push('');
              continue;
            }
            break;
          }
          if (indentOf(l) < 2 && (ITEM.test(l) || HEADING.test(l) || l.startsWith('|') ||
                                  FENCE.test(l)))
            break;
          body.push(l.slice(Math.min(content, indentOf(l))));
          i++;
        }
        list.items.push(parseBlocks(body.join('\n')));
      }
      blocks.push(list);
    } else {
      const body = [];
      while (i < lines.length && lines[i].trim() && !FENCE.test(lines[i]) &&
             !HEADING.test(lines[i]) && !lines[i].startsWith('|') &&
             !(ITEM.test(lines[i]) && indentOf(lines[i]) < 2)) { // a list may interrupt
        body.push(lines[i].trim());
        i++;
      }
      blocks.push({ type: 'para', text: body.join(' ') });
    }
  }
  return blocks;
}

// ---- roff ------------------------------------------------------------------

// One character as roff input: backslash, minus and anything outside ASCII
// escaped, so the page is plain ASCII and renders the same under any locale.
function escChar(c) {
  if (c === '\\') return '\\e';
  if (c === '-') return '\\-';
  const cp = c.codePointAt(0);
  if (cp > 126) return `\\[u${cp.toString(16).toUpperCase().padStart(4, '0')}]`;
  return c;
}

export function esc(s) {
  let out = '';
  for (const c of s) out += escChar(c);
  return out;
}

// A line of roff text: a leading '.' or '\'' would be read as a request.
function textLine(s) {
  return /^[.']/.test(s) ? `\\&${s}` : s;
}

const FONT = { R: '\\fR', B: '\\fB', I: '\\fI' };

// Inline Markdown to roff in font `font` (R, B or I), returning to it.
export function inline(s, font = 'R') {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const rest = s.slice(i);
    let m;
    if (s[i] === '`' && (m = rest.match(/^`([^`]+)`/))) {
      out += font === 'B' ? esc(m[1]) : `${FONT.B}${esc(m[1])}${FONT[font]}`;
      i += m[0].length;
    } else if ((m = rest.match(/^\*\*(.+?)\*\*/))) {
      out += `${FONT.B}${inline(m[1], 'B')}${FONT[font]}`;
      i += m[0].length;
    } else if ((m = rest.match(/^\*(\S(?:[^*]*\S)?)\*(?![*\w])/)) && !/\w/.test(s[i - 1] || '')) {
      out += `${FONT.I}${inline(m[1], 'I')}${FONT[font]}`;
      i += m[0].length;
    } else if ((m = rest.match(/^\[([^\]]+)\]\(([^)\s]+)\)/))) {
      out += inline(m[1], font);
      if (/^https?:/.test(m[2])) out += ` <${esc(m[2])}>`;
      i += m[0].length;
    } else {
      const c = String.fromCodePoint(s.codePointAt(i));
      out += escChar(c);
      i += c.length;
    }
  }
  return out;
}

// Heading text for a macro argument: no markup, no quotes.
function plain(s) {
  const t = s.replace(/\[([^\]]+)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
  return esc(t).replace(/"/g, '\\(dq');
}

function codeBlock(lines) {
  const out = ['.RS 4', '.nf'];
  for (const l of lines) out.push(textLine(esc(l)));
  out.push('.fi', '.RE');
  return out;
}

// A usage block: each "truecost ..." form as one synopsis (.SY), filled,
// so that long forms wrap at the terminal's width under their first word.
function usage(lines) {
  const forms = [];
  for (const l of lines) {
    if (/^\s*truecost\b/.test(l) || !forms.length) forms.push(l.trim());
    else forms[forms.length - 1] += ' ' + l.trim();
  }
  const out = [];
  for (const f of forms) {
    const rest = f.replace(/\s+/g, ' ').replace(/^truecost ?/, '');
    out.push('.SY truecost', textLine(esc(rest)), '.YS');
  }
  return out;
}

// A table as tagged paragraphs: the first cell is the tag, the others the
// text ("header: cell; ..."). In a table whose first column is left empty
// under its first row (a section and its keys), the tag is both cells.
function table(t) {
  const out = [];
  const grouped = t.rows.some((r) => !r[0]) && t.header.length > 2;
  let carry = '';
  for (const row of t.rows) {
    carry = row[0] || carry;
    const tag = grouped ? `${carry} ${row[1]}` : carry;
    const rest = row.slice(grouped ? 2 : 1);
    const names = t.header.slice(grouped ? 2 : 1);
    const body = rest.length === 1 && !grouped ? inline(rest[0] || '')
      : rest.map((c, k) => (c ? `${inline(names[k])}: ${inline(c)}` : ''))
        .filter(Boolean).join('; ');
    out.push('.TP', textLine(`${FONT.B}${inline(tag, 'B')}${FONT.R}`), textLine(body));
  }
  return out;
}

// Renders blocks. `heading(level, text)` returns the roff lines of a
// heading (null: leave it out); with `usage`, the first code block is a
// usage block.
function render(blocks, opts, inList = false) {
  const out = [];
  let firstPara = inList;
  for (const b of blocks) {
    switch (b.type) {
    case 'heading': {
      const h = opts.heading(b.level, b.text);
      if (h) out.push(...h);
      break;
    }
    case 'para':
      if (firstPara) out.push(textLine(inline(b.text)));
      else out.push(inList ? '.IP' : '.PP', textLine(inline(b.text)));
      break;
    case 'code':
      if (opts.usage && !opts.usageDone) {
        opts.usageDone = true;
        out.push(...usage(b.lines));
      } else {
        out.push(inList ? '.IP' : '.PP', ...codeBlock(b.lines));
      }
      break;
    case 'table':
      out.push(...(inList ? ['.RS'] : []), ...table(b), ...(inList ? ['.RE'] : []));
      break;
    case 'list': {
      if (inList) out.push('.RS');
      b.items.forEach((item, k) => {
        out.push(b.ordered ? `.IP ${k + 1}. 4` : '.IP \\(bu 2');
        out.push(...render(item, { ...opts, usage: false }, true));
      });
      if (inList) out.push('.RE');
      break;
    }
    }
    firstPara = false;
  }
  return out;
}

// ---- the page --------------------------------------------------------------

function read(root, rel) {
  const p = join(root, rel);
  if (!existsSync(p)) fail(`${rel} is missing`);
  return readFileSync(p, 'utf8');
}

// The blocks of `text` under the heading `title` (any level), up to the
// next heading of the same or a higher level.
function section(blocks, title, rel) {
  const k = blocks.findIndex((b) => b.type === 'heading' && b.text === title);
  if (k < 0) fail(`${rel} has no heading "${title}"`);
  const lvl = blocks[k].level;
  let e = k + 1;
  while (e < blocks.length && !(blocks[e].type === 'heading' && blocks[e].level <= lvl)) e++;
  return blocks.slice(k + 1, e);
}

const boldHeading = (level, text) => ['.PP', `${FONT.B}${plain(text)}${FONT.R}`];

// A whole docs page under an .SH: its title left out, ## as .SS, deeper
// headings as bold lines.
function page(blocks) {
  return render(blocks, {
    heading: (level, text) => (level === 1 ? null : level === 2 ? [`.SS "${plain(text)}"`]
      : boldHeading(level, text)),
  });
}

export function makePage(root, { version = '', date = '' } = {}) {
  const out = [];
  out.push(`.\\" Generated by scripts/man.mjs from README.md and docs/; do not edit.`);
  out.push('.nr HY 0'); // no hyphenation: option names and words must stay whole
  out.push(`.TH TRUECOST 1 "${date}" "truecost ${esc(version)}" "User Commands"`);
  out.push('.nh', '.ad l'); // and no stretched spaces
  out.push('.SH NAME', 'truecost \\- measure what an AI inference platform really costs');

  // SYNOPSIS: the global forms, then each command's usage block.
  const pages = {};
  for (const cmd of COMMANDS) {
    const rel = `docs/commands/${cmd}.md`;
    pages[cmd] = parseBlocks(read(root, rel));
    const h = pages[cmd][0];
    if (!h || h.type !== 'heading' || h.level !== 1 || !h.text.startsWith(`truecost ${cmd} `))
      fail(`${rel} must start with "# truecost ${cmd} — ..."`);
    if (!pages[cmd].some((b) => b.type === 'code')) fail(`${rel} has no usage block`);
    if (!pages[cmd].some((b) => b.type === 'heading' && b.text === 'Exit status'))
      fail(`${rel} has no "## Exit status"`);
  }
  out.push('.SH SYNOPSIS', '.SY truecost', '\\-\\-help | \\-\\-version', '.YS',
           '.SY truecost', 'help \\fICOMMAND\\fR', '.YS',
           '.SY truecost', '\\fICOMMAND\\fR \\-\\-help', '.YS');
  for (const cmd of COMMANDS) out.push(...usage(pages[cmd].find((b) => b.type === 'code').lines));

  // DESCRIPTION: README's introduction, up to its first ## heading.
  const readme = parseBlocks(read(root, 'README.md'));
  const first = readme.findIndex((b) => b.type === 'heading' && b.level === 2);
  if (first < 0) fail('README.md has no ## heading');
  out.push('.SH DESCRIPTION', ...render(readme.slice(0, first), { heading: () => null }));
  const index = parseBlocks(read(root, 'docs/commands/README.md'));
  out.push('.PP', 'The commands:', ...table(index.find((b) => b.type === 'table')));

  // COMMANDS: one .SS per page, its usage and text.
  out.push('.SH COMMANDS');
  for (const cmd of COMMANDS) {
    const blocks = pages[cmd];
    const title = blocks[0].text.replace(/^truecost /, '');
    out.push(`.SS "${plain(title)}"`);
    out.push(...render(blocks.slice(1), { heading: boldHeading, usage: true }));
    // The options as `truecost CMD --help` prints them: the same file is
    // compiled into the binary, so the two never disagree.
    const help = read(root, `docs/help/${cmd}.txt`).replace(/\n$/, '').split('\n');
    out.push('.PP', `\\fBtruecost ${esc(cmd)} --help\\fR:`, ...codeBlock(help));
  }

  const sh = (name, rel) => out.push(`.SH ${name}`, ...page(parseBlocks(read(root, rel))));
  sh('"COST PROFILES"', 'docs/profiles.md');
  sh('"ASSESSMENT FILES"', 'docs/assessments.md');
  sh('"HARDWARE TELEMETRY"', 'docs/telemetry.md');
  sh('STORAGE', 'docs/storage.md');
  sh('METHOD', 'docs/method.md');
  sh('"JSON OUTPUT"', 'docs/json.md');

  out.push('.SH "EXIT STATUS"', ...page(section(index, 'Exit status', 'docs/commands/README.md')));
  const files = parseBlocks(read(root, 'docs/files.md'));
  out.push('.SH FILES', ...page(section(files, 'Files', 'docs/files.md')));
  out.push('.SH ENVIRONMENT', ...page(section(files, 'Environment', 'docs/files.md')));
  out.push('.SH "SEE ALSO"',
           '.BR nvidia\\-smi (1),', '.BR rocm\\-smi (1),', '.BR sqlite3 (1).',
           '.PP',
           'The same reference in Markdown: README.md and docs/ in truecost\'s source tree.');
  return out.join('\n') + '\n';
}

function main(argv) {
  const here = dirname(fileURLToPath(import.meta.url));
  const opts = { root: join(here, '..'), version: '', date: '', out: null };
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k];
    const v = () => (k + 1 < argv.length ? argv[++k] : fail(`${a} needs a value`));
    if (a === '--root') opts.root = v();
    else if (a === '--version') opts.version = v();
    else if (a === '--date') opts.date = v();
    else if (a === '-o') opts.out = v();
    else fail(`unknown argument '${a}' (usage: man.mjs [--root DIR] [--version V] [--date D] [-o FILE])`);
  }
  if (!opts.date) {
    const epoch = process.env.SOURCE_DATE_EPOCH;
    opts.date = (epoch ? new Date(Number(epoch) * 1000) : new Date()).toISOString().slice(0, 10);
  }
  const text = makePage(opts.root, opts);
  if (opts.out) writeFileSync(opts.out, text);
  else process.stdout.write(text);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));

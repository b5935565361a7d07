#!/usr/bin/env node
// Checks that no measured figure was lost when the README was split into docs/ (issue 38).
// A figure token is a number with a decimal part (0.659, 1.139.1), a number with thousands
// separators (2,840), or a number with a unit (39 min, 186 s, 59 %, 50.3×, 100k, 14.0 MiB).
// Every token of the old README must still occur in README.md + docs/*.md (whitespace-insensitive,
// not as part of a longer number).
//
// Usage: node scripts/check-docs-figures.mjs [--ref COMMIT | --tokens FILE] [--root DIR] [--write-tokens FILE] [--json]
//   --ref COMMIT        take the old README from git (default d0d8acb, the last one-file README)
//   --tokens FILE       take the token list from FILE (one a line) instead of git
//   --write-tokens FILE write the old README's tokens to FILE and exit
//   --root DIR          the tree whose README.md and docs/*.md are checked (default: this repo)
//   --json              print {tokens, missing} as JSON
// Exit code: 0 when nothing is missing, 1 when a token is missing, 2 on a usage error.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const USAGE = 'Usage: node scripts/check-docs-figures.mjs [--ref COMMIT | --tokens FILE] [--root DIR] [--write-tokens FILE] [--json]';
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const UNITS = 'ms|s|min|h|MB|GB|KB|KiB|MiB|GiB|%|×|k|M|points|pp|µs|tasks|records';
const NUMBER = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)+`;
const FIGURE = new RegExp(String.raw`(?<![\d.,])(?:(?:${NUMBER}|\d+)\s?(?:${UNITS})(?![A-Za-z\d])|${NUMBER})(?![\d]|[.,]\d)`, 'g');

/** The figure tokens of a text, each once, whitespace between number and unit normalised to one space. */
export function figureTokens(text) {
  const flat = text.replace(/\s+/g, ' ');
  return [...new Set([...flat.matchAll(FIGURE)].map((m) => m[0].replace(/\s+/, ' ').replace(/\.$/, '')))];
}

function escape(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The tokens that do not occur in the haystack (not as part of a longer number). */
export function missingTokens(tokens, haystack) {
  const flat = haystack.replace(/\s+/g, ' ');
  return tokens.filter((t) => !new RegExp(String.raw`(?<![\d.,])${escape(t).replace(' ', '\\s?')}(?![\d]|[.,]\d)`).test(flat));
}

function docsText(root) {
  const docs = path.join(root, 'docs');
  const files = [path.join(root, 'README.md'), ...(fs.existsSync(docs) ? fs.readdirSync(docs).filter((f) => f.endsWith('.md')).map((f) => path.join(docs, f)) : [])];
  return files.filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

function parse(argv) {
  const opts = { ref: 'd0d8acb', root: REPO, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--ref') opts.ref = value();
    else if (a === '--tokens') opts.tokens = value();
    else if (a === '--root') opts.root = path.resolve(value());
    else if (a === '--write-tokens') opts.write = value();
    else if (a === '--json') opts.json = true;
    else if (a === '--help' || a === '-h') opts.help = true;
    else throw new Error(`unknown option ${a}`);
  }
  return opts;
}

function main() {
  let opts;
  try {
    opts = parse(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`check-docs-figures: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const tokens = opts.tokens
    ? fs.readFileSync(opts.tokens, 'utf8').split('\n').filter((l) => l.length > 0)
    : figureTokens(execFileSync('git', ['show', `${opts.ref}:README.md`], { cwd: REPO, encoding: 'utf8', maxBuffer: 64 << 20 }));
  if (opts.write) {
    fs.writeFileSync(opts.write, tokens.join('\n') + '\n');
    process.stdout.write(`wrote ${tokens.length} figure tokens to ${opts.write}\n`);
    return 0;
  }
  const missing = missingTokens(tokens, docsText(opts.root));
  if (opts.json) process.stdout.write(JSON.stringify({ tokens: tokens.length, missing }) + '\n');
  else process.stdout.write(`${tokens.length} figure tokens of the old README; ${missing.length} missing from README.md + docs/*.md${missing.length ? `: ${missing.join(' | ')}` : ''}\n`);
  return missing.length === 0 ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();

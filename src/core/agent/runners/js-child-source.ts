import { JS_TOOLBOX_NAMES, JS_TOOLBOX_SOURCE } from '../toolbox/js-toolbox-source';

/** File name the user code gets in stack traces (and on disk, inside the run's temp dir). */
export const JS_USER_FILE = 'user-code.js';

/**
 * Bootstrap of the JavaScript sandbox child, run with `node -e` under the
 * permission model. argv: [workDir, now]. It reads `<workDir>/user-code.js`,
 * compiles it inside `async function () { ... }` (so top-level `await` works,
 * line numbers are those of the user code), runs it with the toolbox, and sends
 * one `{t:'result'}` line on fd 3. SQL requests go over the same fd,
 * synchronously (blocking read), so `sql()` returns rows directly.
 */
export const JS_CHILD_SOURCE = String.raw`
'use strict';
const fs = require('fs');
const vm = require('vm');
const path = require('path');
const { StringDecoder } = require('string_decoder');
const workDir = process.argv[1];
const NOW = process.argv[2];
const CHANNEL = 3;
let sent = false;
function writeAll(text) {
  const b = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < b.length) {
    try { off += fs.writeSync(CHANNEL, b, off, b.length - off); }
    catch (e) { if (e.code !== 'EAGAIN') throw e; }
  }
}
const decoder = new StringDecoder('utf8');
const inbuf = Buffer.alloc(1 << 16);
function readLine() {
  const parts = [];
  for (;;) {
    let n;
    try { n = fs.readSync(CHANNEL, inbuf, 0, inbuf.length, null); }
    catch (e) { if (e.code === 'EAGAIN') continue; throw e; }
    if (n === 0) throw new Error('the host closed the toolbox channel');
    const text = decoder.write(inbuf.subarray(0, n));
    const nl = text.indexOf('\n');
    if (nl >= 0) { parts.push(text.slice(0, nl)); return parts.join(''); }
    parts.push(text);
  }
}
function request(message) {
  writeAll(JSON.stringify(message) + '\n');
  return JSON.parse(readLine());
}
function jsonSafe(value) {
  const text = JSON.stringify(value, (key, v) => {
    if (typeof v === 'bigint') return Number(v);
    if (v instanceof Set) return Array.from(v);
    if (v instanceof Map) return Object.fromEntries(v);
    return v;
  });
  return text === undefined ? null : JSON.parse(text);
}
function describe(err) {
  const isErr = err instanceof Error;
  const kind = isErr ? String(err.name || 'Error') : 'Thrown';
  let message;
  try { message = isErr ? String(err.message) : (typeof err === 'string' ? err : JSON.stringify(err)); } catch (e) { message = String(err); }
  if (isErr && err.code === 'ERR_ACCESS_DENIED') {
    const what = [err.permission, err.resource].filter(Boolean).join(' ');
    return withLine({ kind: 'AccessDenied', message: message + (what ? ' (' + what + ')' : '') + '; the sandbox allows files only inside its working directory and no child processes or workers' }, err);
  }
  return withLine({ kind, message: message.slice(0, 10000) }, err);
}
function withLine(desc, err) {
  const stack = err instanceof Error && typeof err.stack === 'string' ? err.stack : '';
  const m = /user-code\.js:(\d+)/.exec(stack);
  const line = m ? Number(m[1]) : 0;
  return line > 0 ? Object.assign(desc, { line }) : desc;
}
function finish(msg) {
  if (sent) return;
  sent = true;
  writeAll(JSON.stringify(msg) + '\n');
}
function fail(err) { finish({ t: 'result', status: 'error', error: describe(err) }); process.exit(1); }
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
process.on('exit', () => {
  if (!sent) finish({ t: 'result', status: 'error', error: { kind: 'NeverFinished', message: 'the code ended without finishing: it called process.exit() or awaited a promise that never settles' } });
});
${JS_TOOLBOX_SOURCE}
const NO_ANSWER = Symbol('no-answer');
let explicit = NO_ANSWER;
function setAnswer(value) { explicit = value; return value; }
const tb = makeToolbox(request, NOW);
const names = ${JSON.stringify(JS_TOOLBOX_NAMES)};
async function main() {
  const code = fs.readFileSync(path.join(workDir, '${JS_USER_FILE}'), 'utf8');
  const head = '(function (' + names.join(', ') + ', setAnswer, __noAnswer) { return async function () {';
  const wrapped = head + '\n' + code + '\n;return typeof answer === "undefined" ? __noAnswer : answer;\n}; })';
  const script = new vm.Script(wrapped, { filename: '${JS_USER_FILE}', lineOffset: -1 });
  const factory = script.runInThisContext();
  const fn = factory(...names.map((n) => tb[n]), setAnswer, NO_ANSWER);
  const returned = await fn();
  let value = explicit;
  if (value === NO_ANSWER) value = returned === undefined ? NO_ANSWER : returned;
  if (value === NO_ANSWER && typeof globalThis.answer !== 'undefined') value = globalThis.answer;
  if (value === NO_ANSWER || value === undefined) { finish({ t: 'result', status: 'no-answer' }); return; }
  let answer;
  try { answer = jsonSafe(value); }
  catch (e) { finish({ t: 'result', status: 'error', error: { kind: 'AnswerError', message: 'the answer is not JSON-serialisable: ' + e.message } }); return; }
  finish({ t: 'result', status: 'answer', answer });
}
main().then(() => process.exit(0), fail);
`;

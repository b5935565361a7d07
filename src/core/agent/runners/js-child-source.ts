/**
 * Source of the JavaScript sandbox's host process, run with `node -e` under
 * Node's permission model (reads only the QuickJS packages; no writes, child
 * processes or workers). argv: [memoryMb, stackBytes, prelude, ...quickjs module paths].
 *
 * It loads QuickJS (WebAssembly) once, with a `WebAssembly.Memory` whose growth
 * is capped (the guest gets a clean "out of memory"; QuickJS's own memory limit
 * does not hold), then serves runs one at a time over fd 3 (NDJSON, blocking
 * reads, so the guest's `sql()` returns rows synchronously):
 *   host → child  {t:'run', code, now, timeoutMs, outputBytes}
 *   child → host  {t:'sql', ...} (answered by one line), {t:'out', fd, text}, {t:'result', ...}
 * Each run gets a fresh runtime and context, an interrupt deadline, a stack cap,
 * and every handle is disposed. The guest sees only language built-ins plus the
 * toolbox: no require, process, fetch, timers or file access.
 */
export const JS_CHILD_SOURCE = String.raw`
'use strict';
const fs = require('fs');
const { StringDecoder } = require('string_decoder');
const [memoryMb, stackBytes] = [Number(process.argv[1]), Number(process.argv[2])];
const PRELUDE = process.argv[3];
const core = require(process.argv[4]);
const variant = require(process.argv[5]).default;
const CHANNEL = 3;
function writeAll(text) {
  const b = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < b.length) {
    try { off += fs.writeSync(CHANNEL, b, off, b.length - off); }
    catch (e) { if (e.code !== 'EAGAIN') throw e; }
  }
}
function send(msg) { writeAll(JSON.stringify(msg) + '\n'); }
const decoder = new StringDecoder('utf8');
const inbuf = Buffer.alloc(1 << 16);
let pending = '';
function readLine() {
  for (;;) {
    const nl = pending.indexOf('\n');
    if (nl >= 0) { const line = pending.slice(0, nl); pending = pending.slice(nl + 1); return line; }
    let n;
    try { n = fs.readSync(CHANNEL, inbuf, 0, inbuf.length, null); }
    catch (e) { if (e.code === 'EAGAIN') continue; throw e; }
    if (n === 0) process.exit(0);
    pending += decoder.write(inbuf.subarray(0, n));
  }
}
const OOM = /out of memory|memory access out of bounds|Cannot enlarge memory|Aborted/i;

function runOne(QJS, job) {
  const deadline = Date.now() + job.timeoutMs;
  let outputUsed = 0, outputExceeded = false, timedOut = false;
  const rt = QJS.newRuntime();
  rt.setMaxStackSize(stackBytes);
  rt.setMemoryLimit(memoryMb * 1024 * 1024);
  rt.setInterruptHandler(() => {
    if (outputExceeded) return true;
    if (Date.now() > deadline) { timedOut = true; return true; }
    return false;
  });
  const ctx = rt.newContext();
  const handles = [];
  const keep = (h) => { handles.push(h); return h; };
  try {
    const request = keep(ctx.newFunction('__host_request', (arg) => {
      send(JSON.parse(ctx.getString(arg)));
      return ctx.newString(readLine());
    }));
    const print = keep(ctx.newFunction('__host_print', (fdH, textH) => {
      if (outputExceeded) return;
      const fd = ctx.getNumber(fdH) === 2 ? 2 : 1;
      let text = ctx.getString(textH);
      const bytes = Buffer.byteLength(text);
      if (outputUsed + bytes > job.outputBytes) {
        text = Buffer.from(text).subarray(0, Math.max(0, job.outputBytes - outputUsed)).toString('utf8');
        outputExceeded = true;
      }
      outputUsed += Buffer.byteLength(text);
      send({ t: 'out', fd, text });
      if (outputExceeded) return { error: keep(ctx.newError('output limit reached')) };
    }));
    ctx.setProp(ctx.global, '__host_request', request);
    ctx.setProp(ctx.global, '__host_print', print);
    const now = keep(ctx.newString(job.now));
    ctx.setProp(ctx.global, '__now', now);
    const prelude = ctx.evalCode(PRELUDE, 'toolbox.js');
    if (prelude.error) {
      // Under heavy load the time limit can pass while the toolbox itself loads: that is a timeout.
      if (timedOut) { prelude.error.dispose(); return limitResult(true); }
      const e = ctx.dump(prelude.error); prelude.error.dispose(); throw new Error('toolbox failed: ' + JSON.stringify(e));
    }
    prelude.value.dispose();
    const fn = ctx.evalCode(job.code, 'user-code.js');
    if (fn.error) return finishError(ctx, fn.error, timedOut, outputExceeded);
    keep(fn.value);
    const drive = keep(ctx.getProp(ctx.global, '__drive'));
    const called = ctx.callFunction(drive, ctx.undefined, fn.value);
    if (called.error) return finishError(ctx, called.error, timedOut, outputExceeded);
    called.value.dispose();
    for (;;) {
      const jobs = rt.executePendingJobs();
      if (jobs.error) return finishError(ctx, jobs.error, timedOut, outputExceeded);
      if (jobs.value === 0) break;
    }
    if (timedOut || outputExceeded) return limitResult(timedOut);
    const outcome = keep(ctx.getProp(ctx.global, '__outcome'));
    if (ctx.typeof(outcome) !== 'string') return { t: 'result', status: 'error', error: { kind: 'NeverFinished', message: 'the code ended without finishing: it awaited a promise that never settles' } };
    const result = JSON.parse(ctx.getString(outcome));
    if (result.error && result.error.kind === 'InternalError' && /out of memory/i.test(result.error.message)) result.error.kind = 'MemoryError';
    return result;
  } finally {
    for (const h of handles.reverse()) if (h.alive) h.dispose();
    ctx.dispose();
    rt.dispose();
  }
}
function limitResult(timedOut) {
  return timedOut
    ? { t: 'result', status: 'error', error: { kind: 'Timeout', message: 'interrupted at the time limit' } }
    : { t: 'result', status: 'error', error: { kind: 'OutputLimit', message: 'output limit reached' } };
}
function finishError(ctx, handle, timedOut, outputExceeded) {
  const e = ctx.dump(handle);
  handle.dispose();
  if (timedOut || outputExceeded) return limitResult(timedOut);
  const name = e && typeof e === 'object' ? String(e.name || 'Error') : 'Thrown';
  const message = e && typeof e === 'object' ? String(e.message) : String(e);
  const out = { kind: name, message: message.slice(0, 10000) };
  if (name === 'InternalError' && /out of memory/i.test(message)) out.kind = 'MemoryError';
  const m = e && typeof e.stack === 'string' ? /user-code\.js:(\d+)/.exec(e.stack) : null;
  if (m && Number(m[1]) > 1) out.line = Number(m[1]) - 1;
  return { t: 'result', status: 'error', error: out };
}

const memory = new WebAssembly.Memory({ initial: 256, maximum: (memoryMb + 32) * 16 });
core.newQuickJSWASMModuleFromVariant(core.newVariant(variant, { wasmMemory: memory })).then((QJS) => {
  send({ t: 'ready' });
  for (;;) {
    const job = JSON.parse(readLine());
    let result;
    try { result = runOne(QJS, job); }
    catch (e) {
      const message = String((e && e.message) || e);
      send({ t: 'result', status: 'error', error: { kind: OOM.test(message) ? 'MemoryError' : 'SandboxError', message: message.slice(0, 2000) }, fatal: true });
      process.exit(3);
    }
    send(result);
  }
}, (e) => { process.stderr.write('cannot load QuickJS: ' + String((e && e.message) || e) + '\n'); process.exit(2); });
`;

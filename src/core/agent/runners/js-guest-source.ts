import { JS_TOOLBOX_NAMES, JS_TOOLBOX_SOURCE } from '../toolbox/js-toolbox-source';

/** File name the user code gets in stack traces. */
export const JS_USER_FILE = 'user-code.js';

/**
 * Evaluated inside QuickJS before the user code (file `toolbox.js`). Captures the
 * host functions `__host_request` / `__host_print` and removes them from the
 * global object, defines `console` and the toolbox, and `__drive(fn)`, which runs
 * the wrapped user code and stores the outcome as a JSON string in `__outcome`.
 */
export const JS_GUEST_PRELUDE = String.raw`
(function () {
  'use strict';
  const hostRequest = globalThis.__host_request;
  const hostPrint = globalThis.__host_print;
  delete globalThis.__host_request;
  delete globalThis.__host_print;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  function show(v) {
    if (typeof v === 'string') return v;
    if (v instanceof Error) return String(v.name) + ': ' + String(v.message);
    try { const s = stringify(v); return s === undefined ? String(v) : s; } catch (e) { return String(v); }
  }
  const print = (stream) => (...args) => { hostPrint(stream, args.map(show).join(' ') + '\n'); };
  globalThis.console = { log: print(1), info: print(1), debug: print(1), warn: print(2), error: print(2) };
  ${JS_TOOLBOX_SOURCE}
  const NOW = globalThis.__now;
  delete globalThis.__now;
  const tb = makeToolbox((msg) => parse(hostRequest(stringify(msg))), NOW);
  const names = ${JSON.stringify(JS_TOOLBOX_NAMES)};
  function jsonSafe(value) {
    const text = stringify(value, (key, v) => {
      if (typeof v === 'bigint') return Number(v);
      if (v instanceof Set) return Array.from(v);
      if (v instanceof Map) return Object.fromEntries(v);
      return v;
    });
    return text === undefined ? 'null' : text;
  }
  function describe(err) {
    const isErr = err instanceof Error;
    let message;
    try { message = isErr ? String(err.message) : (typeof err === 'string' ? err : stringify(err)); } catch (e) { message = String(err); }
    const out = { kind: isErr ? String(err.name || 'Error') : 'Thrown', message: String(message).slice(0, 10000) };
    const m = isErr && typeof err.stack === 'string' ? /user-code\.js:(\d+)/.exec(err.stack) : null;
    if (m && Number(m[1]) > 1) out.line = Number(m[1]) - 1;
    return out;
  }
  globalThis.__drive = function (fn) {
    const NO = {};
    let explicit = NO;
    const setAnswer = (v) => { explicit = v; return v; };
    const done = (o) => { globalThis.__outcome = stringify(o); };
    let promise;
    try { promise = fn(...names.map((n) => tb[n]), setAnswer, NO); } catch (e) { done({ t: 'result', status: 'error', error: describe(e) }); return; }
    promise.then((returned) => {
      let value = explicit;
      if (value === NO) value = returned === undefined ? NO : returned;
      if (value === NO || value === undefined) { done({ t: 'result', status: 'no-answer' }); return; }
      let text;
      try { text = jsonSafe(value); }
      catch (e) { done({ t: 'result', status: 'error', error: { kind: 'AnswerError', message: 'the answer is not JSON-serialisable: ' + String(e && e.message) } }); return; }
      globalThis.__outcome = '{"t":"result","status":"answer","answer":' + text + '}';
    }, (e) => done({ t: 'result', status: 'error', error: describe(e) }));
  };
})();
`;

/** Wraps user code so top-level `await`/`return` work and line n of the code is line n + 1 of the file. */
export function wrapUserCode(code: string): string {
  return `(async function (${JS_TOOLBOX_NAMES.join(', ')}, setAnswer, __noAnswer) {\n${code}\n;return typeof answer === "undefined" ? __noAnswer : answer;\n})`;
}

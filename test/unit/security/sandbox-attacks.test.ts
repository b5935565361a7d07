import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRunner, type CodeRunner, type RunLanguage, type RunResult } from '../../../src/core/agent/runners';
import { cliRun, listen, processesWith, ROOT, scratch, sha256, sleep, unique, type Listeners } from './attack-support';

/**
 * Hostile programs, each kind from both languages, run in exactly the agent's
 * sandbox. Every test asserts that the harm did not happen (database hash,
 * listener counts, marker files, secrets in the output, live processes), not
 * merely that an error came back.
 */
const PY_ATTEMPT = `
_res = []
def attempt(name, f):
    try:
        f()
        _res.append(name + ':ok')
    except BaseException as e:
        _res.append(name + ':' + type(e).__name__)
`;
const JS_ATTEMPT = `
const _res = [];
const attempt = (name, f) => { try { f(); _res.push(name + ':ok'); } catch (e) { _res.push(name + ':' + String(e && e.name)); } };
`;

for (const language of ['javascript', 'python'] as RunLanguage[]) {
  describe(`sandbox attacks: ${language}`, function () {
    this.timeout(60_000);
    const py = language === 'python';
    let runner: CodeRunner;
    let target: ReturnType<typeof scratch>;
    let hash: string;
    const run = (code: string, limits: Record<string, number> = { timeoutMs: 5000 }): Promise<RunResult> =>
      runner.run({ language, databasePath: target.db, code: (py ? PY_ATTEMPT : JS_ATTEMPT) + code, limits });
    const everything = (r: RunResult): string => JSON.stringify(r);

    before(() => {
      runner = createRunner(language);
      target = scratch();
      hash = sha256(target.db);
    });
    after(() => {
      runner.dispose();
      target.cleanup();
    });

    it('cannot write the database: no connection object, ATTACH, query_only, writes, raw channel or file access', async () => {
      const db = JSON.stringify(target.db);
      const sqlAttacks = [
        `attach database ${JSON.stringify(`'${target.db}'`).slice(1, -1)} as x`,
        "attach database 'file:x?mode=rwc' as x",
        'pragma query_only = 0',
        'pragma journal_mode = delete',
        'pragma writable_schema = 1',
        'insert into patients (row_id) values (999999)',
        'select 1; delete from patients',
        'drop table patients',
        'vacuum',
      ];
      const code = py
        ? `import gc, sys, os, json
for q in ${JSON.stringify(sqlAttacks)}:
    attempt(q, lambda q=q: sql(q))
conns = []
try:
    import sqlite3
    conns = [repr(o) for o in gc.get_objects() if isinstance(o, sqlite3.Connection)]
except BaseException as e:
    pass
for m in list(sys.modules.values()):
    for v in list(getattr(m, '__dict__', {}).values()):
        if type(v).__name__ == 'Connection': conns.append(repr(v))
attempt('connect', lambda: __import__('sqlite3').connect(${db}).execute('delete from patients'))
attempt('open', lambda: open(${db}, 'r+b').write(b'x' * 4096))
attempt('raw-channel', lambda: os.write(3, (json.dumps({'t': 'sql', 'query': 'delete from patients', 'params': [], 'shape': 'array'}) + '\\n').encode()))
answer = {'connections': conns, 'results': _res}`
        : `for (const q of ${JSON.stringify(sqlAttacks)}) attempt(q, () => sql(q));
const names = Object.getOwnPropertyNames(globalThis);
attempt('host-request', () => globalThis.__host_request('{"t":"sql","query":"delete from patients"}'));
attempt('constructor', () => sql.constructor('return this')().__host_request('x'));
answer = { connections: names.filter((n) => /db|database|conn|host/i.test(n)), results: _res };`;
      const r = await run(code);
      assert.equal(r.outcome, 'success', everything(r));
      const answer = r.answer as { connections: string[]; results: string[] };
      assert.deepEqual(answer.connections, [], 'a connection object was reachable');
      assert.ok(answer.results.every((x) => !x.startsWith('insert') || !x.endsWith(':ok')), everything(r));
      const count = await run('answer = sql("select count(*) from patients")');
      assert.deepEqual(count.answer, [[100]]);
      assert.equal(sha256(target.db), hash, 'the database file changed');
    });

    it('cannot read the host environment, /proc of its parent, /etc/shadow or files outside its working directory', async () => {
      const secret = unique('env-secret');
      const fileSecret = unique('file-secret');
      const secretFile = path.join(target.dir, 'secret.txt');
      fs.writeFileSync(secretFile, fileSecret);
      const shadow = fs.existsSync('/etc/shadow') ? fs.readFileSync('/etc/shadow', 'utf8').split('\n')[0] : 'root:';
      const files = ['/proc/%PPID%/environ', '/proc/1/environ', '/proc/self/environ', '/etc/shadow', '/etc/passwd', secretFile, path.join(ROOT, 'package.json'), '/root/.bash_history'];
      const code = py
        ? `import os
out = []
for p in ${JSON.stringify(files)}:
    p = p.replace('%PPID%', str(os.getppid()))
    try: out.append(open(p, 'rb').read().decode('latin1'))
    except BaseException as e: out.append(p + ':' + type(e).__name__)
for d in os.listdir('/proc'):
    if d.isdigit():
        try: out.append(open('/proc/' + d + '/environ', 'rb').read().decode('latin1'))
        except BaseException: pass
out.append(repr(dict(os.environ)))
print('\\n'.join(out))
answer = out`
        : `const out = [];
const tries = [() => process.env, () => require('fs').readFileSync('/etc/shadow', 'utf8'), () => globalThis.std.getenviron(), () => globalThis.os,
  () => Function('return this')().process.env, () => sql.constructor('return process')().env, () => import('fs'), () => import('std')];
for (const t of tries) { try { const v = t(); out.push(JSON.stringify(v) ?? String(v)); } catch (e) { out.push(String(e && e.name)); } }
console.log(out.join('\\n'));
answer = out;`;
      const codeFile = path.join(target.dir, py ? 'attack.py' : 'attack.js');
      fs.writeFileSync(codeFile, code.startsWith('import') || py ? PY_ATTEMPT + code : JS_ATTEMPT + code);
      const { output } = await cliRun(['--language', language, '--db', target.db, '--code-file', codeFile, '--json'], { AGENT_MEMORY_ATTACK_SECRET: secret });
      assert.match(output, /"outcome"/, output.slice(0, 2000));
      assert.ok(!output.includes(secret), 'the host environment leaked');
      assert.ok(!output.includes(fileSecret), 'a file outside the working directory was read');
      assert.ok(!output.includes(shadow), '/etc/shadow was read');
      assert.ok(!output.includes('"displayName": "Agent Memory"'), 'the repository was readable');
    });

    it('cannot start a process that outlives the run; a 2 s limit returns in about 2 s', async () => {
      const marker = unique('proc-marker');
      const hostMarker = path.join(os.tmpdir(), unique('host-marker'));
      const code = py
        ? `import _posixsubprocess, os, sys
argv = [sys.executable, '-c', 'import time; open(${JSON.stringify(hostMarker)}, "w").write("x"); time.sleep(30)', '${marker}']
attempt('fork_exec', lambda: _posixsubprocess.fork_exec(argv, [sys.executable.encode()], True, (), None, None, -1, -1, -1, -1, -1, -1, *os.pipe(), True, False, -1, None, None, None, -1, None, False))
attempt('posix_spawn', lambda: os.posix_spawn(sys.executable, argv, {}))
attempt('fork', lambda: os.fork())
attempt('ctypes', lambda: __import__('ctypes').CDLL(None).system(b'sleep 30 ${marker} &'))
attempt('subprocess', lambda: __import__('subprocess').Popen(argv))
attempt('system', lambda: os.system('sleep 30 ${marker} &'))
print(_res)
while True:
    try:
        while True: pass
    except BaseException:
        pass`
        : `attempt('require', () => require('child_process').spawn('sleep', ['30', '${marker}']));
attempt('process', () => process.binding('spawn_sync'));
attempt('escape', () => sql.constructor('return process')().mainModule.require('child_process').execSync('sleep 30 ${marker} &'));
attempt('worker', () => new Worker('x'));
console.log(_res.join(' '));
for (;;) { try { for (;;) {} } catch (e) { /* keep going */ } }`;
      const started = Date.now();
      const r = await run(code, { timeoutMs: 2000 });
      const elapsed = Date.now() - started;
      assert.equal(r.outcome, 'timeout', everything(r));
      assert.ok(elapsed < 3500, `a 2 s limit returned after ${elapsed} ms`);
      await sleep(500);
      assert.deepEqual(processesWith(marker), [], 'a process started by the code is still alive');
      assert.equal(fs.existsSync(hostMarker), false, 'a child process wrote outside the sandbox');
    });

    it('cannot reach any network address, loopback included (raw sockets and HTTP clients)', async () => {
      const l: Listeners = await listen();
      try {
        const code = py
          ? `import socket, urllib.request
attempt('tcp', lambda: socket.create_connection(('127.0.0.1', ${l.tcpPort}), timeout=1))
attempt('udp', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', ${l.udpPort})))
attempt('raw', lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP).sendto(b'x', ('127.0.0.1', ${l.udpPort})))
attempt('http', lambda: urllib.request.urlopen('http://127.0.0.1:${l.tcpPort}/', timeout=1))
attempt('_socket', lambda: __import__('_socket').socket().connect(('127.0.0.1', ${l.tcpPort})))
answer = _res`
          : `attempt('fetch', () => fetch('http://127.0.0.1:${l.tcpPort}/'));
attempt('xhr', () => new XMLHttpRequest());
attempt('ws', () => new WebSocket('ws://127.0.0.1:${l.tcpPort}/'));
attempt('net', () => require('net').connect(${l.tcpPort}, '127.0.0.1'));
attempt('dgram', () => require('dgram').createSocket('udp4').send('x', ${l.udpPort}, '127.0.0.1'));
attempt('import', () => import('net').then((n) => n.connect(${l.tcpPort}, '127.0.0.1')));
answer = _res;`;
        const r = await run(code);
        assert.notEqual(r.outcome, 'timeout', everything(r));
        await sleep(300);
        assert.equal(l.received(), 0, `the listeners received something: ${everything(r)}`);
      } finally {
        await l.close();
      }
    });

    it('survives memory bombs with a clean memory error', async () => {
      const bombs = py
        ? ['keep = []\nwhile True: keep.append(bytearray(10 ** 7))', 'x = bytearray(10 ** 10)', "s = 'x'\nwhile True: s = s + s"]
        : ['const keep = []; for (;;) keep.push(new Uint8Array(1e7));', 'const x = new Uint8Array(1e9);', 'const keep = []; for (let i = 0;; i++) keep.push({ i, s: "x" + i });'];
      const rssBefore = process.memoryUsage().rss;
      for (const bomb of bombs) {
        const r = await run(bomb, { timeoutMs: 15_000, memoryMb: 64 });
        assert.equal(r.outcome, 'error', `${bomb}: ${everything(r)}`);
        assert.ok(r.killedBy === 'memory' || /memory|too long|too large|invalid array length/i.test(r.error?.message ?? ''), `${bomb}: ${everything(r)}`);
      }
      assert.ok(process.memoryUsage().rss - rssBefore < 256 * 1024 * 1024, 'the host grew by more than 256 MiB');
      const after = await run('answer = sql("select count(*) from patients")');
      assert.deepEqual(after.answer, [[100]]);
    });

    it('cuts huge output at the cap', async () => {
      const code = py ? "print('x' * 10 ** 7)\nwhile True: print('y' * 1000)" : "console.log('x'.repeat(1e7)); for (;;) console.log('y'.repeat(1000));";
      const r = await run(code, { timeoutMs: 8000, outputBytes: 8192 });
      assert.equal(r.truncated, true, everything(r).slice(0, 500));
      assert.equal(r.killedBy, 'output');
      assert.ok(Buffer.byteLength(r.stdout) + Buffer.byteLength(r.stderr) <= 8192);
    });
  });
}

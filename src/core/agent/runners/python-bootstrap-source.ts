import { PY_TOOLBOX_SOURCE } from '../toolbox/python-toolbox-source';

/** File name of the user code inside the run's temp dir; tracebacks show it as `<user-code>`. */
export const PY_USER_FILE = 'user_code.py';

/**
 * Bootstrap of the Python sandbox, run as `python3 -I -B -u -c <this>` inside
 * the OS boundary (see python-sandbox.ts). argv: [workDir, now, memoryMb, cpuSeconds].
 * 1. resource limits: RLIMIT_AS (memory), RLIMIT_CPU (CPU seconds), RLIMIT_FSIZE,
 *    RLIMIT_CORE = 0, RLIMIT_NPROC = 0;
 * 2. gives the code the toolbox, whose `sql()` asks the host's read-only SQL
 *    service over fd 3 (the program never holds a database handle);
 * 3. installs an audit hook refusing process creation, ctypes, sockets, gc
 *    introspection and writes outside the working directory. This only turns
 *    attempts into clear errors: the boundary is the sandbox around the process;
 * 4. runs the user code and sends one JSON result line on fd 3.
 */
export const PY_BOOTSTRAP_SOURCE = String.raw`
import sys, os, json, resource, traceback, math
_work_dir, _NOW, _mem_mb, _cpu_s = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
_CHAN = 3
_sent = [False]
def _write(text):
    data = text.encode('utf-8')
    while data:
        data = data[os.write(_CHAN, data):]
def _send(msg):
    if _sent[0]: return
    _sent[0] = True
    _write(json.dumps(msg, allow_nan=False) + '\n')
_inbuf = [b'']
def _request(msg):
    _write(json.dumps(msg, allow_nan=False) + '\n')
    buf = _inbuf[0]
    while b'\n' not in buf:
        chunk = os.read(_CHAN, 65536)
        if not chunk: raise ConnectionError('the host closed the toolbox channel')
        buf += chunk
    line, _, rest = buf.partition(b'\n')
    _inbuf[0] = rest
    return json.loads(line)

def _limit(res, soft, hard=None):
    try:
        resource.setrlimit(res, (soft, soft if hard is None else hard))
    except (ValueError, OSError):
        pass
_limit(resource.RLIMIT_CORE, 0)
_limit(resource.RLIMIT_CPU, _cpu_s, _cpu_s + 1)
_limit(resource.RLIMIT_FSIZE, 64 * 1024 * 1024)
if hasattr(resource, 'RLIMIT_NPROC'): _limit(resource.RLIMIT_NPROC, 0)
_limit(resource.RLIMIT_AS, _mem_mb * 1024 * 1024)

${PY_TOOLBOX_SOURCE}
_toolbox = make_toolbox(_request, _NOW)

def _make_hook():
    tmp = os.path.realpath(_work_dir)
    realpath, fspath, sep = os.path.realpath, os.fspath, os.sep
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
    blocked = frozenset(['os.system', 'os.exec', 'os.posix_spawn', 'os.spawn', 'os.fork', 'os.forkpty', 'subprocess.Popen',
        'pty.spawn', 'os.kill', 'os.killpg', 'os.startfile', 'ctypes.dlopen', 'ctypes.dlsym', 'ctypes.call_function',
        'ctypes.cdata', 'sqlite3.connect', 'sqlite3.enable_load_extension', 'sqlite3.load_extension', 'socket.connect',
        'socket.bind', 'socket.sendto', 'gc.get_objects', 'gc.get_referrers', 'gc.get_referents', 'sys.setprofile', 'sys.settrace',
        'os.chroot', 'resource.setrlimit', 'resource.prlimit', 'sys._current_frames', 'mmap.__new__'])
    path_events = {'os.remove': (0,), 'os.rmdir': (0,), 'os.rename': (0, 1), 'os.mkdir': (0,), 'os.symlink': (0, 1),
        'os.link': (0, 1), 'os.truncate': (0,), 'os.chmod': (0,), 'os.chown': (0,), 'os.utime': (0,), 'shutil.rmtree': (0,),
        'os.setxattr': (0,), 'os.removexattr': (0,), 'shutil.copyfile': (1,), 'shutil.copytree': (1,), 'shutil.move': (1,)}
    def inside(p):
        if isinstance(p, int): return True
        try:
            if isinstance(p, bytes): p = p.decode('utf-8', 'replace')
            rp = realpath(fspath(p))
        except Exception:
            return False
        return rp == tmp or rp.startswith(tmp + sep)
    def hook(event, args):
        if event == 'open':
            path, mode, flags = args[0], args[1], args[2]
            writing = (isinstance(flags, int) and flags & write_flags) or (isinstance(mode, str) and any(c in mode for c in 'wax+'))
            if writing and not inside(path):
                raise PermissionError('sandbox: writing ' + repr(path) + ' is not allowed; write only inside the working directory')
        elif event in blocked:
            raise PermissionError('sandbox: ' + event + ' is not allowed (no processes, native code, network or new database connections)')
        elif event in path_events:
            for i in path_events[event]:
                if i < len(args) and not inside(args[i]):
                    raise PermissionError('sandbox: ' + event + ' on ' + repr(args[i]) + ' is not allowed outside the working directory')
    return hook

def _jsonable(v, depth=0):
    if depth > 200: raise ValueError('the answer is nested too deeply')
    if v is None or isinstance(v, (bool, int, str)): return v
    if isinstance(v, float): return v if math.isfinite(v) else None
    if isinstance(v, (list, tuple, set, frozenset, range)): return [_jsonable(x, depth + 1) for x in v]
    if isinstance(v, dict): return {str(k): _jsonable(x, depth + 1) for k, x in v.items()}
    if isinstance(v, (bytes, bytearray)): return bytes(v).decode('utf-8', 'replace')
    if hasattr(v, 'tolist'): return _jsonable(v.tolist(), depth + 1)
    if hasattr(v, '__float__'): return _jsonable(float(v), depth + 1)
    return str(v)

def _user_line(tb):
    line = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == '<user-code>': line = frame.lineno
    return line

def _error(kind, message, line=None):
    err = {'kind': kind, 'message': message[:10000]}
    if isinstance(line, int) and line > 0: err['line'] = line
    return {'t': 'result', 'status': 'error', 'error': err}

_NO = object()
_explicit = [_NO]
def setAnswer(value):
    _explicit[0] = value
    return value

with open(os.path.join(_work_dir, '${PY_USER_FILE}'), encoding='utf-8') as _f:
    _code = _f.read()
_ns = {'__name__': '__main__', '__builtins__': __builtins__, 'setAnswer': setAnswer, 'set_answer': setAnswer}
_ns.update(_toolbox)
os.chdir(_work_dir)
sys.addaudithook(_make_hook())
try:
    exec(compile(_code, '<user-code>', 'exec'), _ns)
    _value = _explicit[0] if _explicit[0] is not _NO else _ns.get('answer', _NO)
    if _value is _NO:
        _send({'t': 'result', 'status': 'no-answer'})
    else:
        try:
            _send({'t': 'result', 'status': 'answer', 'answer': _jsonable(_value)})
        except (ValueError, TypeError, RecursionError) as e:
            _sent[0] = False
            _send(_error('AnswerError', 'the answer is not JSON-serialisable: ' + str(e)))
except SyntaxError as e:
    _send(_error(type(e).__name__, str(e.msg), e.lineno if e.filename == '<user-code>' else None))
except MemoryError as e:
    _send(_error('MemoryError', 'out of memory (limit ' + str(_mem_mb) + ' MiB)', _user_line(e.__traceback__)))
except SystemExit as e:
    _send(_error('SystemExit', 'the code called exit(' + repr(e.code) + ') before finishing', _user_line(e.__traceback__)))
except BaseException as e:
    _send(_error(type(e).__name__, str(e), _user_line(e.__traceback__)))
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
`;

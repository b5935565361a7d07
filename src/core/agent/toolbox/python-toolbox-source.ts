/**
 * Python source of the toolbox given to generated code, executed by the Python
 * bootstrap. Defines `make_toolbox(request, NOW)` returning a dict of functions,
 * where `request(msg)` asks the host's read-only SQL service (which applies the
 * EHRSQL dialect) and returns its reply. Same functions and semantics as the
 * JavaScript toolbox (docs.ts documents both).
 */
export const PY_TOOLBOX_SOURCE = String.raw`
import math as _math, ast as _ast, json as _json

class SqlError(Exception): pass
class SqlReadOnlyError(Exception): pass
class CalculateError(Exception): pass


def make_toolbox(request, NOW):
    def _query(q, params, as_objects, fn):
        if not isinstance(q, str) or not q.strip():
            raise TypeError(fn + ': the query must be a non-empty string')
        if params is not None and not isinstance(params, (list, tuple)):
            raise TypeError(fn + ': params must be a list')
        r = request({'t': 'sql', 'query': q, 'params': list(params or ()), 'shape': 'object' if as_objects else 'array'})
        if not isinstance(r, dict) or not r.get('ok'):
            err = r.get('error') if isinstance(r, dict) else None
            kind = err.get('kind') if isinstance(err, dict) else 'SqlError'
            message = err.get('message') if isinstance(err, dict) else 'no reply from the SQL service'
            raise (SqlReadOnlyError if kind == 'SqlReadOnlyError' else SqlError)(message)
        rows = r.get('rows', [])
        return rows if as_objects else [list(x) for x in rows]

    def sql(query, params=None):
        return _query(query, params, False, 'sql')

    def loadTable(name):
        if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
            raise TypeError('loadTable: not a table name: ' + repr(name))
        return _query('select * from "' + name + '"', (), True, 'loadTable')

    def _cell(row, column, fn):
        if isinstance(row, (list, tuple)):
            if not isinstance(column, int) or isinstance(column, bool) or column < 0 or column >= len(row):
                raise TypeError(fn + ': rows are lists, so column must be an index 0..' + str(len(row) - 1) + ', got ' + repr(column))
            return row[column]
        if not isinstance(row, dict):
            raise TypeError(fn + ': rows must be lists or dicts')
        if column in row:
            return row[column]
        low = str(column).lower()
        for k in row:
            if str(k).lower() == low:
                return row[k]
        raise TypeError(fn + ': no column ' + repr(column) + '; columns are ' + ', '.join(map(str, row.keys())))

    def _isnum(v):
        if isinstance(v, bool): return False
        if isinstance(v, (int, float)): return True
        if isinstance(v, str) and v.strip():
            try:
                float(v); return True
            except ValueError:
                return False
        return False

    def _cmp(a, b):
        if _isnum(a) and _isnum(b):
            d = float(a) - float(b)
            return (d > 0) - (d < 0)
        x, y = str(a), str(b)
        return (x > y) - (x < y)

    def _match(v, op, value):
        if op in ('is null',): return v is None
        if op in ('is not null',): return v is not None
        if op in ('!=', '<>'): return v is None or _cmp(v, value) != 0
        if op == 'not in': return isinstance(value, (list, tuple, set)) and not any(v is not None and _cmp(v, x) == 0 for x in value)
        if v is None: return False
        if op in ('=', '=='): return _cmp(v, value) == 0
        if op == '<': return _cmp(v, value) < 0
        if op == '<=': return _cmp(v, value) <= 0
        if op == '>': return _cmp(v, value) > 0
        if op == '>=': return _cmp(v, value) >= 0
        if op == 'in': return isinstance(value, (list, tuple, set)) and any(_cmp(v, x) == 0 for x in value)
        if op == 'contains': return str(value).lower() in str(v).lower()
        if op == 'startswith': return str(v).lower().startswith(str(value).lower())
        raise TypeError('filterRows: unknown op ' + repr(op) + " (use = != < <= > >= in 'not in' contains startswith 'is null' 'is not null')")

    def filterRows(rows, column, op, value=None):
        if not isinstance(rows, list): raise TypeError('filterRows: rows must be a list')
        o = str(op).lower()
        return [r for r in rows if _match(_cell(r, column, 'filterRows'), o, value)]

    def getValues(rows, column):
        if not isinstance(rows, list): raise TypeError('getValues: rows must be a list')
        return [_cell(r, column, 'getValues') for r in rows]

    def distinct(values):
        if not isinstance(values, list): raise TypeError('distinct: values must be a list')
        seen = set(); out = []
        for v in values:
            k = _json.dumps(v, sort_keys=True, default=str)
            if k not in seen:
                seen.add(k); out.append(v)
        return out

    def _date(v):
        return NOW if v is None or str(v).lower() == 'now' else str(v)

    def _scalar(expr, params):
        return _query('select ' + expr, params, False, 'date helper')[0][0]

    def now():
        return NOW

    def datetime(value=None, *modifiers):
        return _scalar('datetime(' + ', '.join(['?'] * (1 + len(modifiers))) + ')', [_date(value)] + [str(m) for m in modifiers])

    units = {'year': 'years', 'years': 'years', 'month': 'months', 'months': 'months', 'day': 'days', 'days': 'days',
             'hour': 'hours', 'hours': 'hours', 'minute': 'minutes', 'minutes': 'minutes', 'second': 'seconds', 'seconds': 'seconds'}

    def datetimeAdd(value, amount, unit):
        u = units.get(str(unit).lower())
        if u is None: raise TypeError('datetimeAdd: unit must be years, months, days, hours, minutes or seconds')
        if isinstance(amount, bool) or not isinstance(amount, (int, float)) or not _math.isfinite(amount):
            raise TypeError('datetimeAdd: amount must be a number')
        if isinstance(amount, float) and amount.is_integer(): amount = int(amount)
        return datetime(value, ('+' if amount >= 0 else '') + str(amount) + ' ' + u)

    def startOf(value, unit):
        u = str(unit).lower()
        if u.endswith('s'): u = u[:-1]
        if u not in ('year', 'month', 'day'): raise TypeError('startOf: unit must be year, month or day')
        return datetime(value, 'start of ' + u)

    def strftime(format, value=None):
        return _scalar('strftime(?, ?)', [str(format), _date(value)])

    def daysBetween(a, b):
        return _scalar('julianday(?) - julianday(?)', [_date(b), _date(a)])

    def _round(x, d=0):
        f = 10.0 ** d
        return _math.floor(x * f + 0.5) / f

    fns = {'abs': abs, 'sqrt': _math.sqrt, 'floor': _math.floor, 'ceil': _math.ceil, 'exp': _math.exp, 'log': _math.log,
           'pow': _math.pow, 'min': min, 'max': max, 'round': _round}
    consts = {'pi': _math.pi, 'e': _math.e}

    def calculate(expr):
        if isinstance(expr, (int, float)) and not isinstance(expr, bool): return expr
        s = str(expr)
        def fail(m): raise CalculateError('calculate: ' + m + ' in ' + _json.dumps(s))
        try:
            tree = _ast.parse(s.strip().replace('^', '**'), mode='eval')
        except SyntaxError:
            fail('invalid expression')
        def ev(node):
            if isinstance(node, _ast.Expression): return ev(node.body)
            if isinstance(node, _ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool): return float(node.value)
            if isinstance(node, _ast.UnaryOp) and isinstance(node.op, (_ast.UAdd, _ast.USub)):
                v = ev(node.operand); return -v if isinstance(node.op, _ast.USub) else v
            if isinstance(node, _ast.BinOp):
                a = ev(node.left); b = ev(node.right); op = node.op
                if isinstance(op, _ast.Add): return a + b
                if isinstance(op, _ast.Sub): return a - b
                if isinstance(op, _ast.Mult): return a * b
                if isinstance(op, _ast.Div):
                    if b == 0: fail('division by zero')
                    return a / b
                if isinstance(op, _ast.Mod):
                    if b == 0: fail('modulo by zero')
                    return a - b * _math.floor(a / b)
                if isinstance(op, _ast.Pow):
                    try: return _math.pow(a, b)
                    except (OverflowError, ValueError): fail('the result is not a finite number')
                fail('unsupported operator')
            if isinstance(node, _ast.Call) and isinstance(node.func, _ast.Name) and not node.keywords:
                f = fns.get(node.func.id.lower())
                if f is None: fail('unknown function ' + node.func.id)
                return float(f(*[ev(a) for a in node.args]))
            if isinstance(node, _ast.Name):
                if node.id.lower() in consts: return consts[node.id.lower()]
                fail('unknown name ' + node.id)
            fail('unsupported syntax')
        try:
            v = ev(tree)
        except (OverflowError, ValueError, TypeError) as e:
            fail(str(e))
        if not _math.isfinite(v): fail('the result is not a finite number')
        return int(v) if v.is_integer() and abs(v) < 2 ** 53 else v

    tb = {'sql': sql, 'loadTable': loadTable, 'filterRows': filterRows, 'getValues': getValues, 'distinct': distinct,
          'now': now, 'datetime': datetime, 'datetimeAdd': datetimeAdd, 'startOf': startOf, 'strftime': strftime,
          'daysBetween': daysBetween, 'calculate': calculate}
    tb.update({'load_table': loadTable, 'filter_rows': filterRows, 'get_values': getValues, 'datetime_add': datetimeAdd,
               'start_of': startOf, 'days_between': daysBetween})
    return tb
`;

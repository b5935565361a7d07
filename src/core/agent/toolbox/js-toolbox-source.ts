/**
 * JavaScript source of the toolbox given to generated code, evaluated inside the
 * sandboxed child. Defines `makeToolbox(request, NOW)`, where `request(msg)`
 * synchronously asks the host (SQL) and returns its reply. Keep it in step with
 * the Python toolbox and with docs.ts.
 */
export const JS_TOOLBOX_SOURCE = String.raw`
function makeToolbox(request, NOW) {
  function toolError(name, message) { const e = new Error(message); e.name = name; return e; }
  function query(q, params, shape, fn) {
    if (typeof q !== 'string' || q.trim() === '') throw new TypeError(fn + ': the query must be a non-empty string');
    if (params !== undefined && !Array.isArray(params)) throw new TypeError(fn + ': params must be an array');
    const r = request({ t: 'sql', query: q, params: (params || []).map((p) => (p === undefined ? null : p)), shape });
    if (!r || !r.ok) throw toolError((r && r.error && r.error.kind) || 'SqlError', (r && r.error && r.error.message) || 'no reply from the SQL service');
    return r.rows;
  }
  function sql(q, params) { return query(q, params, 'array', 'sql'); }
  function loadTable(name) {
    if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new TypeError('loadTable: not a table name: ' + String(name));
    return query('select * from "' + name + '"', [], 'object', 'loadTable');
  }
  function cell(row, column, fn) {
    if (Array.isArray(row)) {
      if (typeof column !== 'number' || !Number.isInteger(column) || column < 0 || column >= row.length) throw new TypeError(fn + ': rows are arrays, so column must be an index 0..' + (row.length - 1) + ', got ' + JSON.stringify(column));
      return row[column];
    }
    if (row === null || typeof row !== 'object') throw new TypeError(fn + ': rows must be arrays or objects');
    if (!(column in row)) {
      const lower = String(column).toLowerCase();
      const key = Object.keys(row).find((k) => k.toLowerCase() === lower);
      if (key === undefined) throw new TypeError(fn + ': no column ' + JSON.stringify(column) + '; columns are ' + Object.keys(row).join(', '));
      return row[key];
    }
    return row[column];
  }
  function isNum(v) { return typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && !isNaN(Number(v))); }
  function cmp(a, b) {
    if (isNum(a) && isNum(b)) return Number(a) - Number(b);
    const x = String(a), y = String(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  function matches(v, op, value) {
    switch (op) {
      case '=': case '==': return v !== null && v !== undefined && cmp(v, value) === 0;
      case '!=': case '<>': return v === null || v === undefined || cmp(v, value) !== 0;
      case '<': return v !== null && v !== undefined && cmp(v, value) < 0;
      case '<=': return v !== null && v !== undefined && cmp(v, value) <= 0;
      case '>': return v !== null && v !== undefined && cmp(v, value) > 0;
      case '>=': return v !== null && v !== undefined && cmp(v, value) >= 0;
      case 'in': return Array.isArray(value) && value.some((x) => v !== null && v !== undefined && cmp(v, x) === 0);
      case 'not in': return Array.isArray(value) && !value.some((x) => v !== null && v !== undefined && cmp(v, x) === 0);
      case 'contains': return v !== null && v !== undefined && String(v).toLowerCase().includes(String(value).toLowerCase());
      case 'startswith': return v !== null && v !== undefined && String(v).toLowerCase().startsWith(String(value).toLowerCase());
      case 'is null': return v === null || v === undefined;
      case 'is not null': return v !== null && v !== undefined;
      default: throw new TypeError('filterRows: unknown op ' + JSON.stringify(op) + " (use = != < <= > >= in 'not in' contains startswith 'is null' 'is not null')");
    }
  }
  function filterRows(rows, column, op, value) {
    if (!Array.isArray(rows)) throw new TypeError('filterRows: rows must be an array');
    const o = String(op).toLowerCase();
    return rows.filter((r) => matches(cell(r, column, 'filterRows'), o, value));
  }
  function getValues(rows, column) {
    if (!Array.isArray(rows)) throw new TypeError('getValues: rows must be an array');
    return rows.map((r) => cell(r, column, 'getValues'));
  }
  function distinct(values) {
    if (!Array.isArray(values)) throw new TypeError('distinct: values must be an array');
    const seen = new Set(); const out = [];
    for (const v of values) { const k = JSON.stringify(v); if (!seen.has(k)) { seen.add(k); out.push(v); } }
    return out;
  }
  function dateValue(v) { return v === undefined || v === null || String(v).toLowerCase() === 'now' ? NOW : String(v); }
  function sqlScalar(expr, params) { const rows = query('select ' + expr, params, 'array', 'date helper'); return rows[0][0]; }
  function now() { return NOW; }
  function datetime(value, ...modifiers) {
    return sqlScalar('datetime(' + ['?'].concat(modifiers.map(() => '?')).join(', ') + ')', [dateValue(value)].concat(modifiers.map(String)));
  }
  const UNITS = { year: 'years', years: 'years', month: 'months', months: 'months', day: 'days', days: 'days', hour: 'hours', hours: 'hours', minute: 'minutes', minutes: 'minutes', second: 'seconds', seconds: 'seconds' };
  function datetimeAdd(value, amount, unit) {
    const u = UNITS[String(unit).toLowerCase()];
    if (!u) throw new TypeError('datetimeAdd: unit must be years, months, days, hours, minutes or seconds');
    if (typeof amount !== 'number' || !Number.isFinite(amount)) throw new TypeError('datetimeAdd: amount must be a number');
    return datetime(value, (amount >= 0 ? '+' : '') + amount + ' ' + u);
  }
  function startOf(value, unit) {
    const u = String(unit).toLowerCase().replace(/s$/, '');
    if (u !== 'year' && u !== 'month' && u !== 'day') throw new TypeError('startOf: unit must be year, month or day');
    return datetime(value, 'start of ' + u);
  }
  function strftime(format, value) { return sqlScalar('strftime(?, ?)', [String(format), dateValue(value)]); }
  function daysBetween(a, b) { return sqlScalar('julianday(?) - julianday(?)', [dateValue(b), dateValue(a)]); }
  function calculate(expr) {
    if (typeof expr === 'number') return expr;
    const s = String(expr); let i = 0;
    const fail = (m) => { throw toolError('CalculateError', 'calculate: ' + m + ' in ' + JSON.stringify(s)); };
    const FN = { abs: Math.abs, sqrt: Math.sqrt, floor: Math.floor, ceil: Math.ceil, exp: Math.exp, log: Math.log, pow: Math.pow,
      min: Math.min, max: Math.max, round: (x, d) => { const f = Math.pow(10, d || 0); return Math.round(x * f) / f; } };
    const CONST = { pi: Math.PI, e: Math.E };
    const ws = () => { while (i < s.length && /\s/.test(s[i])) i++; };
    const sum = () => { let v = product(); for (;;) { ws(); const c = s[i]; if (c === '+' || c === '-') { i++; const r = product(); v = c === '+' ? v + r : v - r; } else return v; } };
    const product = () => { let v = unary(); for (;;) { ws(); const c = s[i];
      if (c === '*' && s[i + 1] !== '*') { i++; v *= unary(); }
      else if (c === '/') { i++; const r = unary(); if (r === 0) fail('division by zero'); v /= r; }
      else if (c === '%') { i++; const r = unary(); if (r === 0) fail('modulo by zero'); v = v - r * Math.floor(v / r); }
      else return v; } };
    const unary = () => { ws(); if (s[i] === '-') { i++; return -unary(); } if (s[i] === '+') { i++; return unary(); } return power(); };
    const power = () => { const b = atom(); ws(); if (s[i] === '^' || (s[i] === '*' && s[i + 1] === '*')) { i += s[i] === '^' ? 1 : 2; return Math.pow(b, unary()); } return b; };
    const atom = () => {
      ws();
      if (s[i] === '(') { i++; const v = sum(); ws(); if (s[i] !== ')') fail("expected ')'"); i++; return v; }
      const num = /^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(s.slice(i));
      if (num) { i += num[0].length; return parseFloat(num[0]); }
      const id = /^[A-Za-z_]\w*/.exec(s.slice(i));
      if (id) {
        i += id[0].length; const name = id[0].toLowerCase(); ws();
        if (s[i] === '(') {
          i++; const args = []; ws();
          if (s[i] !== ')') { for (;;) { args.push(sum()); ws(); if (s[i] === ',') { i++; continue; } break; } }
          if (s[i] !== ')') fail("expected ')'"); i++;
          if (!Object.prototype.hasOwnProperty.call(FN, name)) fail('unknown function ' + id[0]);
          return FN[name](...args);
        }
        if (Object.prototype.hasOwnProperty.call(CONST, name)) return CONST[name];
        fail('unknown name ' + id[0]);
      }
      return fail(i >= s.length ? 'unexpected end' : "unexpected '" + s[i] + "'");
    };
    const v = sum(); ws();
    if (i < s.length) fail("unexpected '" + s[i] + "'");
    if (!Number.isFinite(v)) fail('the result is not a finite number');
    return v;
  }
  return { sql, loadTable, filterRows, getValues, distinct, now, datetime, datetimeAdd, startOf, strftime, daysBetween, calculate };
}
`;

/** Names the JavaScript toolbox exposes to generated code, in wrapper-parameter order. */
export const JS_TOOLBOX_NAMES = [
  'sql', 'loadTable', 'filterRows', 'getValues', 'distinct', 'now', 'datetime', 'datetimeAdd', 'startOf', 'strftime', 'daysBetween', 'calculate',
] as const;

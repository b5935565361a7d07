import { strict as assert } from 'node:assert';
import { printable } from '../../../src/core/printable';

describe('printable: hostile text made safe for a terminal', () => {
  it('escapes control characters and bidirectional overrides; keeps newlines and tabs unless one line', () => {
    assert.equal(printable('a\u001b[2Jb\u0007\u202ec'), 'a\\u001b[2Jb\\u0007\\u202ec');
    assert.equal(printable('x\ny\tz'), 'x\ny\tz');
    assert.equal(printable('x\ny\r\tz', { oneLine: true }), 'x\\ny\\r\\tz');
    assert.equal(printable('plain text, ünïcode ✓'), 'plain text, ünïcode ✓');
  });
});

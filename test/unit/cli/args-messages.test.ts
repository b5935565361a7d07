import { strict as assert } from 'node:assert';
import { z } from 'zod';
import { parseValues } from '../../../src/cli/args';
import { StatusSchema } from '../../../src/core/memory/types';

const schema = z.object({
  count: z.coerce.number().int().min(1).max(10_000).optional(),
  timeoutMs: z.coerce.number().int().min(50).optional(),
  status: z.array(StatusSchema).optional(),
  name: z.string({ message: 'give the name with --name' }).optional(),
});

function problem(values: Record<string, unknown>): string {
  try {
    parseValues(schema, values, 'Usage: agent-memory test');
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
  throw new Error('expected a usage error');
}

describe('CLI argument errors say what the option must be, in the option names the user typed', () => {
  it('one problem per option, the tightest bound, kebab-case names, no zod wording', () => {
    assert.equal(problem({ count: '99999999999999999999' }), 'Invalid arguments (--count: must be at most 10000).');
    assert.equal(problem({ count: '2.5' }), 'Invalid arguments (--count: must be a whole number).');
    assert.equal(problem({ timeoutMs: '5' }), 'Invalid arguments (--timeout-ms: must be at least 50).');
    assert.equal(problem({ status: ['foo'] }), 'Invalid arguments (--status: must be one of pending, active, deleted).');
    assert.equal(problem({ name: 3 }), 'Invalid arguments (--name: give the name with --name).');
    assert.equal(problem({ count: '0', timeoutMs: '1' }), 'Invalid arguments (--count: must be at least 1; --timeout-ms: must be at least 50).');
  });
});

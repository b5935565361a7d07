import { strict as assert } from 'node:assert';
import { configFromArgs, parseBenchArgs } from '../../../src/cli/commands/bench';
import { BenchConfigSchema } from '../../../src/core/bench/config';
import { isAgentMemoryError } from '../../../src/core/errors';

const BASE = ['--tasks', 't.jsonl', '--db', 'd.sqlite', '--addition', 'strict', '--out', 'out'];

function rejects(argv: string[], pattern: RegExp): void {
  assert.throws(
    () => parseBenchArgs(argv),
    (e: unknown) => isAgentMemoryError(e, 'INVALID_INPUT') && pattern.test(e.message),
  );
}

describe('bench: argument validation', () => {
  it('applies defaults and maps the arguments to a run configuration', () => {
    const args = parseBenchArgs([...BASE, '--deletion', 'combined', '--capacity=50', '--seed', '3', '--order', 'shift', '--error-free', '--limit', '15']);
    assert.equal(args.deletion, 'combined');
    assert.equal(args.capacity, 50);
    assert.equal(args.model, 'reuse');
    const config = BenchConfigSchema.parse(configFromArgs(args));
    assert.equal(config.initialMemory, 100);
    assert.equal(config.language, 'python');
    assert.equal(config.order, 'shift');
    assert.equal(config.errorFree, true);
    assert.equal(config.seed, 3);
    assert.equal(config.limit, 15);
    assert.equal(config.runCache, true);
  });

  it('names missing required options', () => {
    rejects(['--tasks', 't.jsonl', '--db', 'd', '--out', 'o'], /--addition/);
    rejects(['--db', 'd', '--addition', 'all', '--out', 'o'], /--tasks/);
  });

  it('rejects unknown policies, bad numbers, unknown and repeated options', () => {
    rejects([...BASE.slice(0, 4), '--addition', 'sometimes', '--out', 'o'], /--addition/);
    rejects([...BASE, '--deletion', 'random'], /--deletion/);
    rejects([...BASE, '--capacity', '-3'], /--capacity/);
    rejects([...BASE, '--limit', '0'], /--limit/);
    rejects([...BASE, '--initial-memory', 'ten'], /--initial-memory/);
    rejects([...BASE, '--order', 'random'], /--order/);
    rejects([...BASE, '--language', 'ruby'], /--language/);
    rejects([...BASE, '--frobnicate', '1'], /Unknown option '--frobnicate'/);
    rejects([...BASE, '--seed', '1', '--seed', '2'], /given twice/);
    rejects([...BASE, '--seed'], /needs a value/);
    rejects([...BASE, '--error-free=yes'], /takes no value/);
  });

  it('requires a model name and an http(s) URL for an endpoint model', () => {
    rejects([...BASE, '--model', 'http://localhost:11434/v1'], /--model-name/);
    rejects([...BASE, '--model', 'gpt-4o', '--model-name', 'x'], /--model/);
    const ok = parseBenchArgs([...BASE, '--model', 'http://localhost:11434/v1', '--model-name', 'llama3.1']);
    assert.equal(ok['model-name'], 'llama3.1');
  });
});

import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ModelClient } from '../../../src/core/agent/model';
import {
  emptyRoleMemory,
  renderRoleMemory,
  updateRoleMemory,
  ROLE_MEMORY_MAX_ITEMS,
  type RoleMemory,
} from '../../../src/core/agent/role-memory';
import { InMemoryRoleMemoryStore, JsonFileRoleMemoryStore, type RoleMemoryStore } from '../../../src/core/agent/role-memory-store';
import { isAgentMemoryError } from '../../../src/core/errors';
import { startFakeOpenAI, type FakeOpenAI } from '../../support/fake-openai-server';

const NOW = new Date('2105-06-01T12:00:00.000Z');

function memoryWith(role: 'coder' | 'debugger', lessons: string[]): RoleMemory {
  return { ...emptyRoleMemory(role, new Date('2105-01-01T00:00:00.000Z')), lessons, updates: 4 };
}

describe('role memories', () => {
  let fake: FakeOpenAI;
  afterEach(async () => {
    await fake?.close();
  });

  describe('updateRoleMemory', () => {
    it('sends the old memory, the task and the output, and applies a valid JSON reply', async () => {
      const reply = {
        lessons: ['Dates are relative to 2105-12-31 23:59:00.', 'Count distinct subject_id for patients.'],
        validPatterns: ['answer = sql("select count(distinct subject_id) ...")[0][0]'],
        mistakesToAvoid: [],
      };
      fake = await startFakeOpenAI([{ reply: `Here is the updated memory:\n\`\`\`json\n${JSON.stringify(reply)}\n\`\`\`` }]);
      const model = new ModelClient({ baseURL: fake.baseURL, model: 'm' });
      const old = memoryWith('coder', ['Dates are relative to 2105-12-31 23:59:00.']);
      const result = await updateRoleMemory(model, 'coder', old, { task: 'How many patients were admitted?', output: 'answer = 17' }, { now: NOW });
      assert.equal(result.updated, true);
      assert.equal(result.error, undefined);
      assert.deepEqual(result.memory, { role: 'coder', ...reply, updatedAt: NOW.toISOString(), updates: 5 });
      const [system, user] = fake.requests[0].body.messages;
      assert.match(system.content, /working as the CODER/);
      assert.ok(user.content.includes('How many patients were admitted?'));
      assert.ok(user.content.includes('answer = 17'));
      assert.ok(user.content.includes('"Dates are relative to 2105-12-31 23:59:00."'));
      // the caller's object is untouched
      assert.equal(old.updates, 4);
    });

    it('accepts snake_case keys from the model', async () => {
      fake = await startFakeOpenAI([{ reply: '{"lessons": ["a"], "valid_patterns": ["b"], "mistakes_to_avoid": ["c"]}' }]);
      const result = await updateRoleMemory(new ModelClient({ baseURL: fake.baseURL, model: 'm' }), 'debugger', emptyRoleMemory('debugger'), { task: 't', output: 'o' });
      assert.equal(result.updated, true);
      assert.deepEqual([result.memory.lessons, result.memory.validPatterns, result.memory.mistakesToAvoid], [['a'], ['b'], ['c']]);
      assert.match(fake.requests[0].body.messages[0].content, /working as the DEBUGGER/);
    });

    const invalidReplies: Array<[string, string, RegExp]> = [
      ['prose', 'I updated the memory as requested.', /no valid JSON/],
      ['a missing list', '{"lessons": ["a"], "validPatterns": []}', /mistakesToAvoid/],
      ['too many items', JSON.stringify({ lessons: Array.from({ length: ROLE_MEMORY_MAX_ITEMS + 1 }, (_, i) => `lesson ${i}`), validPatterns: [], mistakesToAvoid: [] }), /lessons: at most 12 items/],
      ['an item too long', JSON.stringify({ lessons: ['x'.repeat(301)], validPatterns: [], mistakesToAvoid: [] }), /lessons\.0: items must be at most 300/],
      ['a non-string item', '{"lessons": [42], "validPatterns": [], "mistakesToAvoid": []}', /lessons\.0/],
    ];
    for (const [name, reply, pattern] of invalidReplies) {
      it(`keeps the old memory and reports the error on ${name}`, async () => {
        fake = await startFakeOpenAI([{ reply }]);
        const old = memoryWith('coder', ['keep me']);
        const result = await updateRoleMemory(new ModelClient({ baseURL: fake.baseURL, model: 'm' }), 'coder', old, { task: 't', output: 'o' });
        assert.equal(result.updated, false);
        assert.deepEqual(result.memory, old);
        assert.ok(result.error && isAgentMemoryError(result.error, 'MODEL'));
        assert.match(result.error.message, /old memory is kept/);
        assert.match(result.error.message, pattern);
        assert.equal(result.raw, reply);
      });
    }

    it('keeps the old memory when the endpoint fails, and rethrows cancellation', async () => {
      fake = await startFakeOpenAI([{ status: 401 }]);
      const model = new ModelClient({ baseURL: fake.baseURL, model: 'm', maxRetries: 0 });
      const old = memoryWith('debugger', ['keep me']);
      const failed = await updateRoleMemory(model, 'debugger', old, { task: 't', output: 'o' });
      assert.equal(failed.updated, false);
      assert.deepEqual(failed.memory, old);
      assert.equal(failed.error?.details?.kind, 'auth');
      await assert.rejects(updateRoleMemory(model, 'debugger', old, { task: 't', output: 'o' }, { signal: AbortSignal.abort() }), (e: unknown) => isAgentMemoryError(e, 'CANCELLED'));
    });

    it('refuses a memory of the other role', async () => {
      fake = await startFakeOpenAI();
      await assert.rejects(
        updateRoleMemory(new ModelClient({ baseURL: fake.baseURL, model: 'm' }), 'coder', emptyRoleMemory('debugger'), { task: 't', output: 'o' }),
        (e: unknown) => isAgentMemoryError(e, 'INVALID_INPUT'),
      );
      assert.equal(fake.requests.length, 0);
    });
  });

  describe('renderRoleMemory', () => {
    it('renders the non-empty sections and nothing for an empty memory', () => {
      assert.equal(renderRoleMemory(emptyRoleMemory('coder')), '');
      const text = renderRoleMemory({ ...emptyRoleMemory('debugger'), lessons: ['L1'], mistakesToAvoid: ['M1', 'M2'], updates: 3 });
      assert.equal(text, 'Your memory as the debugger (from 3 earlier outputs):\nLessons learnt:\n- L1\nMistakes to avoid:\n- M1\n- M2');
    });
  });

  const stores: Array<[string, () => Promise<{ store: RoleMemoryStore; dir?: string }>]> = [
    ['InMemoryRoleMemoryStore', async () => ({ store: new InMemoryRoleMemoryStore() })],
    [
      'JsonFileRoleMemoryStore',
      async () => {
        const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'role-mem-'));
        return { store: new JsonFileRoleMemoryStore(path.join(dir, 'nested')), dir };
      },
    ],
  ];
  for (const [name, make] of stores) {
    describe(name, () => {
      it('loads empty, saves, loads back per role, and resets', async () => {
        const { store, dir } = await make();
        try {
          assert.deepEqual({ ...(await store.load('coder')), updatedAt: '' }, { ...emptyRoleMemory('coder'), updatedAt: '' });
          const coder = memoryWith('coder', ['c']);
          const debuggerMemory = memoryWith('debugger', ['d']);
          await store.save('coder', coder);
          await store.save('debugger', debuggerMemory);
          assert.deepEqual(await store.load('coder'), coder);
          assert.deepEqual(await store.load('debugger'), debuggerMemory);
          const reset = await store.reset('coder');
          assert.equal(reset.updates, 0);
          assert.deepEqual(reset.lessons, []);
          assert.deepEqual(await store.load('coder'), reset);
          assert.deepEqual(await store.load('debugger'), debuggerMemory);
        } finally {
          if (dir) await fs.rm(dir, { recursive: true, force: true });
        }
      });

      it('refuses to save an invalid memory or one of another role', async () => {
        const { store, dir } = await make();
        try {
          const good = memoryWith('coder', ['ok']);
          await store.save('coder', good);
          await assert.rejects(store.save('coder', { ...good, lessons: ['x'.repeat(400)] }), (e: unknown) => isAgentMemoryError(e, 'INVALID_INPUT'));
          await assert.rejects(store.save('coder', memoryWith('debugger', [])), (e: unknown) => isAgentMemoryError(e, 'INVALID_INPUT'));
          assert.deepEqual(await store.load('coder'), good);
        } finally {
          if (dir) await fs.rm(dir, { recursive: true, force: true });
        }
      });
    });
  }

  describe('JsonFileRoleMemoryStore files', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await fs.mkdtemp(path.join(os.tmpdir(), 'role-mem-'));
    });
    afterEach(async () => {
      await fs.rm(dir, { recursive: true, force: true });
    });

    it('writes readable JSON and leaves no temp files behind', async () => {
      const store = new JsonFileRoleMemoryStore(dir);
      for (let i = 0; i < 5; i++) await store.save('coder', memoryWith('coder', [`lesson ${i}`]));
      assert.deepEqual(await fs.readdir(dir), ['coder.json']);
      const onDisk = JSON.parse(await fs.readFile(path.join(dir, 'coder.json'), 'utf8'));
      assert.deepEqual(onDisk.lessons, ['lesson 4']);
    });

    it('reports a corrupt file with the reset remedy instead of guessing', async () => {
      await fs.writeFile(path.join(dir, 'coder.json'), '{"role": "coder", "lessons": [');
      await fs.writeFile(path.join(dir, 'debugger.json'), JSON.stringify({ role: 'debugger', lessons: 'not a list' }));
      const store = new JsonFileRoleMemoryStore(dir);
      await assert.rejects(store.load('coder'), (e: unknown) => isAgentMemoryError(e, 'INVALID_STATE') && /not JSON.*Reset the coder memory/.test(e.message));
      await assert.rejects(store.load('debugger'), (e: unknown) => isAgentMemoryError(e, 'INVALID_STATE') && /lessons/.test(e.message));
      await store.reset('coder');
      assert.equal((await store.load('coder')).updates, 0);
    });

    it('end to end: a failed update leaves the file byte-identical', async () => {
      fake = await startFakeOpenAI([{ reply: '{"lessons": "oops"}' }]);
      const store = new JsonFileRoleMemoryStore(dir);
      await store.save('coder', memoryWith('coder', ['precious']));
      const before = await fs.readFile(path.join(dir, 'coder.json'), 'utf8');
      const result = await updateRoleMemory(new ModelClient({ baseURL: fake.baseURL, model: 'm' }), 'coder', await store.load('coder'), { task: 't', output: 'o' });
      if (result.updated) await store.save('coder', result.memory);
      assert.equal(result.updated, false);
      assert.equal(await fs.readFile(path.join(dir, 'coder.json'), 'utf8'), before);
    });
  });
});

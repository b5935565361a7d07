import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { emptyRoleMemory } from '../../../../src/core/agent/role-memory';
import type { AgentTaskResult } from '../../../../src/core/app/types';
import { isAgentMemoryError } from '../../../../src/core/errors';
import { TeamRoleMemoryStore } from '../../../../src/core/memory/postgres/team-role-memory';
import { seedTeamDemo } from '../../../../src/core/memory/postgres/team-seed';
import { setupTeamMemory } from '../../../../src/core/memory/postgres/team-setup';
import { TeamMemoryStore } from '../../../../src/core/memory/postgres/team-store';
import { runTeamTasks, type TeamTaskOptions } from '../../../../src/cli/team/team-task';
import { nullLogger } from '../../../../src/core/logger';
import { startFakeOpenAI, type FakeOpenAI } from '../../../support/fake-openai-server';
import { usePostgres } from '../../../support/postgres';
import { startProxy } from '../../../support/team-processes';
import { createTeamTaskMemory } from '../../../../src/core/memory/postgres/team-task-memory';
import { runTaskPipeline } from '../../../../src/core/agent/task-pipeline';
import { GoldEvaluator } from '../../../../src/core/agent/task-evaluators';
import { toolboxDocs } from '../../../../src/core/agent/runners';
import { createBenchSession } from '../../../../src/core/bench/session';
import { AgentScript, DATA_DIR, ehrTask, ehrTasks, jsReply } from '../../agent/agent-fixture';

const TASK = ehrTask('769483cfab48dda44872f850'); // "What is the administration method for danazol?" → [["po"]]
const CORRECT = `const rows = sql("select distinct prescriptions.route from prescriptions where prescriptions.drug = 'danazol'");\nanswer = rows;`;
const DATA = path.join(DATA_DIR, 'mimic3-demo.sqlite');
const TASKS_FILE = path.join(DATA_DIR, 'ehrsql-mimic3-tasks.jsonl');

describe('the task pipeline and role memories on the team memory (createTeamTaskMemory, TeamRoleMemoryStore; real cluster)', function () {
  this.timeout(300_000);
  const pg = usePostgres();
  /** A role memory without its timestamp (an empty memory is stamped when made). */
  const content = (m: { updatedAt?: string }): object => ({ ...m, updatedAt: undefined });
  const empty = (role: 'coder' | 'debugger'): object => content(emptyRoleMemory(role));
  const stores: TeamMemoryStore[] = [];
  const connect = async (space: string, client = 'test'): Promise<TeamMemoryStore> => {
    const s = await TeamMemoryStore.connect({ url: pg().appUrl, space, user: 'tester', client });
    stores.push(s);
    return s;
  };

  before(async () => {
    await setupTeamMemory(pg().ownerUrl, { dimensions: [] });
  });
  after(async () => {
    for (const s of stores) await s.close();
  });

  it('role memories load and save per space, reset, refuse an invalid memory, redact secrets and report a corrupt row', async () => {
    const a = new TeamRoleMemoryStore(await connect('roles-a'));
    const b = new TeamRoleMemoryStore(await connect('roles-b'));
    assert.deepEqual(content(await a.load('coder')), empty('coder'));
    const memory = { ...emptyRoleMemory('coder'), lessons: ['Use prescriptions.route', 'token sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD was in the task'], updates: 3 };
    await a.save('coder', memory);
    const loaded = await a.load('coder');
    assert.equal(loaded.updates, 3);
    assert.equal(loaded.lessons[0], 'Use prescriptions.route');
    assert.ok(!loaded.lessons[1].includes('sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD'), 'a secret never reaches the shared role memory');
    assert.deepEqual(content(await b.load('coder')), empty('coder'), 'another space has its own role memories');
    assert.deepEqual(content(await a.load('debugger')), empty('debugger'));
    // A second client of the same space sees the saved memory.
    assert.deepEqual(await new TeamRoleMemoryStore(await connect('roles-a', 'other')).load('coder'), loaded);

    await assert.rejects(a.save('coder', { ...memory, role: 'debugger' }), (e: unknown) => isAgentMemoryError(e, 'INVALID_INPUT'));
    await assert.rejects(a.save('coder', { ...memory, lessons: [42 as unknown as string] }), (e: unknown) => isAgentMemoryError(e, 'INVALID_INPUT'));
    assert.equal((await a.load('coder')).updates, 3, 'a refused save changes nothing');

    const reset = await a.reset('coder');
    assert.deepEqual(content(reset), empty('coder'));
    assert.deepEqual(await a.load('coder'), reset);

    const owner = await TeamMemoryStore.connect({ url: pg().appUrl, space: 'roles-a', user: 'tester', client: 'raw' });
    stores.push(owner);
    await owner.withClient((c) => c.query("UPDATE role_memories SET memory = '{not json' WHERE space = 'roles-a' AND role = 'coder'"), 'corrupt');
    await assert.rejects(a.load('coder'), (e: unknown) => isAgentMemoryError(e, 'INVALID_STATE') && /coder memory of space 'roles-a'.*Reset the coder memory/.test(e.message));
  });

  it("an LLM task on a space updates the space's coder memory, and the next task (another client) shows it in its prompt", async () => {
    const fake: FakeOpenAI = await startFakeOpenAI();
    try {
      const script = new AgentScript(fake);
      const options = (onResult: (r: AgentTaskResult) => void): TeamTaskOptions => ({
        language: 'javascript', dataPath: DATA, k: 4, endpoint: { baseURL: fake.baseURL, model: 'fake-coder-1' }, sweep: null, logger: nullLogger, onResult,
      });
      const first = await connect('llm', 'editor@one');
      assert.equal(await seedTeamDemo(first, TASKS_FILE, 40, 'javascript'), 40);
      script.coder.push({ reply: jsReply(CORRECT) });
      const results: AgentTaskResult[] = [];
      await runTeamTasks(first, [{ question: TASK.question, answer: TASK.answer }], options((r) => results.push(r)));
      assert.equal(results[0].outcome, 'success', results[0].error);
      assert.equal(results[0].verdict.kind, 'correct');
      assert.equal(results[0].modelKind, 'llm');
      assert.equal(results[0].addition.status, 'pending', 'strict space: the agent record waits for a reviewer');
      const coder = await new TeamRoleMemoryStore(first).load('coder');
      assert.equal(coder.updates, 1);
      assert.deepEqual(coder.lessons, ['coder lesson 1']);

      const second = await connect('llm', 'editor@two');
      script.coder.push({ reply: jsReply(CORRECT) });
      await runTeamTasks(second, [{ question: 'What is the administration method for danazol, please?' }], options((r) => results.push(r)));
      const prompts = script.calls('coder');
      assert.equal(prompts.length, 2);
      const promptText = (i: number): string => prompts[i].body.messages.map((m: { content: string }) => m.content).join('\n');
      assert.ok(!promptText(0).includes('coder lesson 1'));
      assert.ok(promptText(1).includes('coder lesson 1'), "the space's coder memory reached the other client's prompt");
      assert.equal((await new TeamRoleMemoryStore(second).load('coder')).updates, 2);
    } finally {
      await fake.close();
    }
  });

  it('two clients running tasks at once on one space: every retrieval and Φ is counted (atomic increments), task indexes never collide', async () => {
    const seedStore = await connect('busy');
    await seedTeamDemo(seedStore, TASKS_FILE, 40, 'python');
    const stream = ehrTasks().filter((t) => t.answer_status === 'nonempty').slice(0, 6);
    const results: AgentTaskResult[] = [];
    const options: TeamTaskOptions = { language: 'python', dataPath: DATA, k: 4, sweep: { periodMs: 0, minActiveRecords: 35, minRetrievals: 1, maxMeanUtility: 0 }, logger: nullLogger, onResult: (r) => results.push(r) };
    const [a, b] = [await connect('busy', 'cli@a'), await connect('busy', 'cli@b')];
    await Promise.all([
      runTeamTasks(a, stream.slice(0, 3).map((t) => ({ question: t.question, answer: t.answer })), options),
      runTeamTasks(b, stream.slice(3).map((t) => ({ question: t.question, answer: t.answer })), options),
    ]);
    assert.equal(results.length, 6);
    assert.equal(new Set(results.map((r) => r.taskIndex)).size, 6, 'one team-wide task index per task');
    const sums = await seedStore.withClient(
      (c) => c.query<{ retrievals: number; credited: number }>("SELECT coalesce(sum(retrieval_count), 0)::int AS retrievals, coalesce(sum(utility_count), 0)::int AS credited FROM records WHERE space = 'busy'"),
      'read',
    );
    assert.equal(sums.rows[0].retrievals, results.reduce((n, r) => n + r.demonstrations.length, 0));
    assert.equal(sums.rows[0].credited, results.reduce((n, r) => n + r.demonstrations.filter((d) => d.shown).length, 0));
    // The sweep ran (period 0) and kept the floor: never below 35 active records.
    const counts = await seedStore.counts();
    assert.ok(counts.active >= 35, JSON.stringify(counts));
    const swept = results.flatMap((r) => r.deletions.filter((d) => d.rule === 'team-sweep'));
    assert.ok(swept.length > 0, 'the team sweep ran after the tasks');
    assert.equal(counts.deleted, swept.reduce((n, d) => n + d.recordIds.length, 0));
  });

  it('offline: the task still runs without shared demonstrations, and its writes fail UNREACHABLE (nothing claimed stored); back online it retrieves again', async () => {
    const seeded = await connect('offline');
    await seedTeamDemo(seeded, TASKS_FILE, 20, 'python');
    const proxy = await startProxy(pg().port);
    try {
      const url = new URL(pg().appUrl);
      url.port = String(proxy.port);
      const team = await TeamMemoryStore.connect({ url: url.toString(), space: 'offline', user: 'tester', client: 'cli@cut', retryMs: 500 });
      stores.push(team);
      const shared = createTeamTaskMemory(team, { logger: nullLogger });
      const session = createBenchSession({ databasePath: DATA, language: 'python' });
      const [task] = ehrTasks().filter((t) => t.answer_status === 'nonempty');
      const deps = { memory: shared.memory, retriever: shared.retriever, embedder: shared.embedder, generator: session.deps.generator, evaluator: new GoldEvaluator(task.answer, 'strict'), run: session.deps.run, toolboxDocs, modelKind: 'reuse' as const };
      try {
        await proxy.cut();
        const before = await seeded.counts();
        await assert.rejects(runTaskPipeline(deps, task.question, { databasePath: DATA, language: 'python' }), (e: unknown) => isAgentMemoryError(e, 'UNREACHABLE'));
        assert.equal(shared.status, 'offline');
        assert.deepEqual(await seeded.counts(), before, 'nothing stored');
        const tasksRow = await seeded.withClient((c) => c.query<{ n: number }>("SELECT count(*)::int AS n FROM tasks WHERE space = 'offline'"), 'read');
        assert.equal(tasksRow.rows[0].n, 0);
        await proxy.restore();
        const back = await runTaskPipeline(deps, task.question, { databasePath: DATA, language: 'python' });
        assert.equal(shared.status, 'connected');
        assert.ok(back.run.demonstrations.length > 0, 'online again: shared demonstrations');
        await shared.settled();
      } finally {
        session.dispose();
      }
    } finally {
      await proxy.close();
    }
  });
});


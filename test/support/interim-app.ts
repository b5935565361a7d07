/**
 * A small AgentMemoryApp for the extension-host tests while src/core/app.ts is being
 * assembled: the real store, task log and deletion planners, with a stand-in "agent"
 * that copies its top demonstration's code (no model, no runner). Used only when the
 * bundled extension has no core facade (`hasFactory` false).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentMemoryApp, AgentTaskResult, DashboardData, DeletionPlan, DeletionPolicyName, RoleMemoryView, TaskStreamItem } from '../../src/core/app-types';
import { AgentMemoryError } from '../../src/core/errors';
import { MemoryStore } from '../../src/core/memory/store';
import { TaskLog } from '../../src/core/memory/task-log';
import type { NewRecordInput, RecordStatus } from '../../src/core/memory/types';
import { applyDeletionPlan, planDeletion } from '../../src/core/policy/deletion';
import type { CreateAppOptions } from '../../src/vscode/app-host';

export function createInterimApp(options: CreateAppOptions): AgentMemoryApp {
  const store = MemoryStore.open(options.databasePath);
  const tasks = new TaskLog(store);
  const settings = options.settings;
  const roles: RoleMemoryView[] = (['coder', 'debugger'] as const).map((role) => ({ role, lessons: [], validPatterns: [], mistakesToAvoid: [], updates: 0 }));

  const runTask = async (question: string, opts: { signal?: AbortSignal } = {}): Promise<AgentTaskResult> => {
    if (opts.signal?.aborted) throw new AgentMemoryError('CANCELLED', 'cancelled');
    const started = Date.now();
    const taskIndex = tasks.begin(question);
    const words = question.toLowerCase().split(/\W+/).filter((w) => w.length > 3);
    const demos = store.list({ status: 'active', sort: 'recency', limit: 1000 }).items
      .map((r) => ({ r, sim: words.filter((w) => r.question.toLowerCase().includes(w)).length / Math.max(1, words.length) }))
      .sort((a, b) => b.sim - a.sim)
      .slice(0, settings.retrieval.k);
    if (demos.length) tasks.logRetrievals(taskIndex, demos.map((d, rank) => ({ recordId: d.r.id, rank, inputSimilarity: d.sim })));
    const code = demos[0]?.r.execution.code ?? 'answer = None';
    const outcome = 'success' as const;
    const policy = settings.addition.policy;
    let addition: AgentTaskResult['addition'] = { added: false, recordId: null, status: null, reason: `addition policy ${policy}: not added` };
    if (policy !== 'fixed') {
      const status: RecordStatus = policy === 'strict' ? 'pending' : 'active';
      const [rec] = store.add([{ question, execution: { code, language: settings.runner.language, outcome, demonstrationIds: demos.map((d) => d.r.id), inputSimilarity: demos[0]?.sim ?? null, outputSimilarity: demos.length ? 1 : null }, status, provenance: 'agent', createdTask: taskIndex }], { trigger: 'agent' });
      addition = { added: true, recordId: rec.id, status, reason: status === 'pending' ? 'strict policy: awaiting your approval' : `${policy} policy: added` };
    }
    if (demos.length) {
      tasks.setOutputSimilarity(taskIndex, demos[0].r.id, 1);
      tasks.setUtility(taskIndex, 1, 'interim');
    }
    tasks.finish(taskIndex, { language: settings.runner.language, code, answer: null, outcome, recordId: addition.recordId, inputSimilarity: demos[0]?.sim ?? null, outputSimilarity: demos.length ? 1 : null, log: { retrieved: demos.map((d) => ({ recordId: d.r.id })) } });
    return {
      taskIndex, question, model: 'interim-copy', language: settings.runner.language, code, answer: null, outcome, attempts: 1,
      demonstrations: demos.map((d) => ({ recordId: d.r.id, question: d.r.question, inputSimilarity: d.sim, code: d.r.execution.code })),
      utility: demos.length ? 1 : null, addition, deletions: [], inputSimilarity: demos[0]?.sim ?? null, outputSimilarity: demos.length ? 1 : null, durationMs: Date.now() - started,
    };
  };

  const deletionParams = () => ({ period: settings.deletion.period, alpha: settings.deletion.alpha, minRetrievals: settings.deletion.historyMinRetrievals, beta: settings.deletion.historyBetaStrict, protectSeeds: settings.deletion.protectSeeds, threshold: settings.deletion.forgettingThreshold });

  return {
    onDidChange: (listener) => store.onDidChange(listener),
    counts: () => store.counts(),
    list: (q) => store.list(q),
    get: (id) => store.get(id),
    audit: (recordId) => store.audit({ recordId }),
    retrievalsOf: (id) => tasks.retrievalsOf(id),
    tasks: () => tasks.list(),
    task: (i) => tasks.get(i),
    approve: (ids) => void store.transition(ids, 'approve', { trigger: 'user' }),
    reject: (ids) => void store.transition(ids, 'reject', { trigger: 'user' }),
    restore: (ids) => void store.transition(ids, 'restore', { trigger: 'user' }),
    purge: (ids) => void store.transition(ids, 'purge', { trigger: 'user' }),
    deleteRecords: (ids, reason) => void store.transition(ids, 'delete', { trigger: 'user', reason }),
    planDeletion: (policy: DeletionPolicyName): DeletionPlan => planDeletion(store.db, policy, tasks.currentIndex, deletionParams()),
    applyDeletion: (plan) => applyDeletionPlan(store, plan, 'user').deleted.length,
    runTask,
    runStream: async (items: TaskStreamItem[], opts) => {
      const out: AgentTaskResult[] = [];
      for (const item of items) {
        if (opts.signal?.aborted) break;
        out.push(await runTask(item.question, opts));
        opts.onProgress?.({ done: out.length, total: items.length, last: out[out.length - 1] });
      }
      return out;
    },
    importJsonl: async (file) => store.add(fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as NewRecordInput), { trigger: 'import' }).length,
    exportJsonl: async (file, status) => {
      const items = store.list({ status, limit: 100_000 }).items;
      fs.writeFileSync(file, items.map((r) => JSON.stringify({ id: r.id, question: r.question, execution: r.execution, status: r.status, provenance: r.provenance })).join('\n') + '\n');
      return items.length;
    },
    seedDemoMemory: async (count = 100) => {
      const lines = fs.readFileSync(path.join(options.demoDataDir, 'ehrsql-mimic3-tasks.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, count);
      const inputs = lines.map((l) => JSON.parse(l) as { question: string; gold_sql: string; answer: unknown }).map((t): NewRecordInput => ({ question: t.question, execution: { code: `answer = sql(${JSON.stringify(t.gold_sql)})`, language: 'python', outcome: 'success', answer: t.answer }, provenance: 'seed' }));
      return store.add(inputs, { trigger: 'import' }).length;
    },
    reembed: async () => store.counts().active,
    dashboard: (): DashboardData => {
      const rows = tasks.list();
      let ok = 0;
      return {
        tasks: rows.map((t) => ({ taskIndex: t.taskIndex, correct: t.outcome === 'success' ? 1 : 0, memorySize: store.counts().active, inputSimilarity: t.inputSimilarity, outputSimilarity: t.outputSimilarity })),
        accuracyCurve: rows.map((t, i) => ({ taskIndex: t.taskIndex, accuracy: (ok += t.outcome === 'success' ? 1 : 0) / (i + 1) })),
        memorySizeCurve: rows.map((t) => ({ taskIndex: t.taskIndex, size: store.counts().active })),
        similarityScatter: rows.filter((t) => t.inputSimilarity !== null && t.outputSimilarity !== null).map((t) => ({ taskIndex: t.taskIndex, input: t.inputSimilarity!, output: t.outputSimilarity! })),
        utilityHistogram: [{ bin: '0–0.5', count: 0 }, { bin: '0.5–1', count: store.list({ status: 'active', limit: 1 }).total }],
        misaligned: [],
        counts: store.counts(),
      };
    },
    roleMemories: () => roles,
    resetRoleMemory: (role) => {
      const r = roles.find((x) => x.role === role)!;
      Object.assign(r, { lessons: [], validPatterns: [], mistakesToAvoid: [], updates: 0 });
    },
    dispose: () => store.close(),
  };
}

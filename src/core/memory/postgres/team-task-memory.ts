/**
 * The agent's task pipeline (src/core/agent/task-pipeline.ts) on the team memory: the
 * retriever, the memory side (task log + afterTask) and the role-memory store for one space,
 * built from the pieces the MCP tools use (team-search, team-utility, team-sweep), so the
 * editor, the CLI and MCP agree on what a task does to the shared memory.
 *
 * - retrieve: searchTeam over the space's active records (one round trip), only records in
 *   the task's languages; the question's vector when the team has a shared embedder, else
 *   keywords only. Offline (UNREACHABLE), no demonstrations: the agent still runs, and
 *   afterTask then fails UNREACHABLE (nothing is claimed stored).
 * - the task log the loop writes is in the process (team-task-log.ts): the synchronous loop
 *   never waits on the network. afterTask copies the task to the server under a team-wide
 *   task index (a sequence).
 * - afterTask: the retrieval log and its counters, Φ on the shown records, the output
 *   similarity (all atomic increments), the addition under the space's policy (strict: an
 *   agent's record is stored pending whatever the client asked, enforced by the server),
 *   then the team sweep (once per team per period, advisory lock: team-sweep.ts). Each step
 *   is one statement or transaction and resolves only once committed; the first that fails
 *   rejects afterTask (typed error) and the steps after it are not done — nothing is ever
 *   reported done that was not committed.
 *
 * @example
 * const shared = createTeamTaskMemory(team, { logger, sweep: { periodMs: 3_600_000, minActiveRecords: 20, minRetrievals: 5, maxMeanUtility: 0.2 } });
 * const r = await runTaskPipeline({ ...deps, memory: shared.memory, retriever: shared.retriever, embedder: shared.embedder }, question, options);
 * await shared.settled(); // the task's final log row is on the server
 */
import { randomUUID } from 'node:crypto';
import { AgentMemoryError, isAgentMemoryError } from '../../errors';
import { Logger, nullLogger } from '../../logger';
import type { DemonstrationRetriever, TaskMemory } from '../../agent/task-pipeline';
import type { RetrievedDemonstration } from '../../agent/loop/agent-loop';
import type { RoleMemoryStore } from '../../agent/role-memory-store';
import { decideAddition } from '../../policy/addition';
import type { AfterTaskInput, AfterTaskResult, DeletionRun, TaskAttribution } from '../../policy/memory-manager';
import { CodeSimilarityFn, taskSimilarity } from '../../policy/metrics';
import type { QuestionEmbedder } from '../../similarity/embedder';
import type { Language, NewRecordInput } from '../types';
import { searchTeam, searchTeamKept } from './team-search';
import type { TeamShapes } from './team-shapes';
import type { TeamMemoryStore } from './team-store';
import { TeamRoleMemoryStore } from './team-role-memory';
import type { TeamStatus } from './team-tools';
import { sweepTeam, TEAM_SWEEP_TRIGGER, TeamSweepInput } from './team-sweep';
import { TeamTaskLog } from './team-task-log';
import { beginTeamTask, finishTeamTask, logTeamRetrievals, markTeamNotShown, setTeamOutputSimilarity, setTeamUtility } from './team-utility';

/** The question embedder of a team without a shared embedder: no vector, keyword retrieval, records stored without vectors. */
export const KEYWORD_ONLY_EMBEDDER: QuestionEmbedder = { id: 'keywords-only', embedQuery: () => Promise.resolve(undefined) };

export interface TeamTaskMemoryDeps {
  logger?: Logger;
  /** For the output similarity (task code vs the top demonstration's); without it none is recorded. */
  codeSimilarity?: CodeSimilarityFn;
  /** The team sweep after each task (once per team per period); null or absent: no sweep from this client. */
  sweep?: TeamSweepInput | null;
  /** The team's shared question embedder (vectors on the server); default KEYWORD_ONLY_EMBEDDER. */
  embedder?: QuestionEmbedder;
  /** Re-rank the retrieval as the personal memory does (team-shapes.ts); default: the fused order. */
  rerank?: TeamShapes;
}

export interface TeamTaskMemory {
  retriever: DemonstrationRetriever;
  memory: TaskMemory;
  embedder: QuestionEmbedder;
  /** The space's coder and debugger role memories. */
  roles: RoleMemoryStore;
  /** The team's task index of a task the pipeline ran (its local index), once afterTask copied it. */
  teamTaskIndex(localIndex: number): number | undefined;
  /** Waits for task-log updates still on their way to the server; rejects when one failed. */
  settled(): Promise<void>;
  /** Connected or offline, as the last retrieval found the server. */
  readonly status: TeamStatus;
}

/** The pipeline's retriever, memory and role store on one space of the team memory (see the file comment). */
export function createTeamTaskMemory(team: TeamMemoryStore, deps: TeamTaskMemoryDeps = {}): TeamTaskMemory {
  const logger = deps.logger ?? nullLogger;
  const embedder = deps.embedder ?? KEYWORD_ONLY_EMBEDDER;
  const tasks = new TeamTaskLog(
    (teamIndex, row) => finishTeamTask(team, teamIndex, { log: row.log }),
    logger,
  );
  let active: number | null = null;
  let status: TeamStatus = 'connected';

  const retriever: DemonstrationRetriever = {
    retrieve: async (question, vector, k, options = {}) => {
      if (k <= 0) return [];
      const allowed = options.languages ? new Set(options.languages.map((l) => l.toLowerCase())) : null;
      let hits;
      try {
        const search = { rerank: deps.rerank };
        hits = allowed ? await searchTeamKept(team, question, vector ?? null, k, (h) => allowed.has(h.record.execution.language.toLowerCase()), search) : await searchTeam(team, question, vector ?? null, k, search);
        status = 'connected';
      } catch (error) {
        if (!isAgentMemoryError(error, 'UNREACHABLE')) throw error;
        // Offline: the agent still runs, without shared demonstrations (never stale ones); the writes after the task fail and say so.
        if (status !== 'offline') logger.warn(`[team] ${error.message} The task runs without shared demonstrations.`);
        status = 'offline';
        return [];
      }
      return hits.map((h, rank): RetrievedDemonstration => ({
        recordId: h.record.id,
        question: h.record.question,
        code: h.record.execution.code,
        language: h.record.execution.language,
        inputSimilarity: h.denseScore ?? null,
        rank,
        ...(h.identical ? { identical: h.identical } : {}),
      }));
    },
  };

  const afterTask = async (input: AfterTaskInput): Promise<AfterTaskResult> => {
    const row = tasks.get(input.taskIndex);
    if (!row) throw new AgentMemoryError('NOT_FOUND', `No task ${input.taskIndex}: begin it with the task log before calling afterTask.`);
    const { evaluation } = input;
    const utility = evaluation?.utility ?? null;
    const language: Language = input.language ?? input.candidate?.execution.language ?? 'python';
    const finalCode = input.finalCode !== undefined ? input.finalCode : (input.candidate?.execution.code ?? null);

    const teamIndex = await beginTeamTask(team, row.question);
    await logTeamRetrievals(team, teamIndex, tasks.retrievalsOf(input.taskIndex));
    const shown = input.retrieved.filter((d) => d.shown).map((d) => d.recordId);
    await markTeamNotShown(team, teamIndex, input.retrieved.filter((d) => !d.shown).map((d) => d.recordId));
    const attribution: TaskAttribution = { attribution: 'shown', shown, credited: shown, shownNotFollowed: [] };
    if (evaluation && utility !== null) {
      await setTeamUtility(team, teamIndex, utility, evaluation.evaluator);
      tasks.setUtility(input.taskIndex, utility, evaluation.evaluator);
    }
    const similarity = taskSimilarity(input.retrieved, finalCode, language, deps.codeSimilarity);
    if (similarity.outputSimilarity !== null && similarity.topRecordId !== null) await setTeamOutputSimilarity(team, teamIndex, similarity.topRecordId, similarity.outputSimilarity);

    const addition = await add(team, input, teamIndex, similarity);
    tasks.finish(input.taskIndex, {
      inputSimilarity: similarity.inputSimilarity,
      outputSimilarity: similarity.outputSimilarity,
      recordId: addition.recordId,
      ...(evaluation ? { evaluator: evaluation.evaluator } : {}),
    });
    const done = tasks.get(input.taskIndex)!;
    await finishTeamTask(team, teamIndex, {
      log: done.log, language: done.language ?? undefined, code: done.code ?? undefined, answer: JSON.stringify(done.answer ?? null), outcome: done.outcome ?? undefined,
      recordId: done.recordId, evaluator: done.evaluator, inputSimilarity: done.inputSimilarity, outputSimilarity: done.outputSimilarity,
    });
    // From here on, the pipeline's own finish (memory size, verdict) goes to the server too.
    tasks.linkTeamIndex(input.taskIndex, teamIndex);

    const deletions: DeletionRun[] = [];
    if (deps.sweep) {
      const swept = await sweepTeam(team, deps.sweep);
      if (swept.ran) {
        deletions.push({ ruleId: 'team-sweep', operation: 'delete:history', trigger: TEAM_SWEEP_TRIGGER, policy: 'history', recordIds: swept.deleted, skipped: [], floorKept: [] });
        if (swept.deleted.length > 0) logger.info(`[team] sweep deleted ${swept.deleted.length} record(s) (restorable)`);
      }
    }
    active = (await team.counts()).active;
    return { taskIndex: teamIndex, utility, evaluator: evaluation?.evaluator ?? null, similarity, attribution, addition, firings: [], deletions };
  };

  const memory: TaskMemory = {
    tasks,
    store: { counts: () => (active === null ? team.counts() : { active }) },
    afterTask,
  };
  return {
    retriever,
    memory,
    embedder,
    roles: new TeamRoleMemoryStore(team),
    teamTaskIndex: (localIndex) => tasks.teamIndexOf(localIndex),
    settled: () => tasks.settled(),
    get status() {
      return status;
    },
  };
}

/** The addition step: the space's policy decides; the server stores an agent's record pending under strict. */
async function add(team: TeamMemoryStore, input: AfterTaskInput, teamIndex: number, similarity: ReturnType<typeof taskSimilarity>): Promise<AfterTaskResult['addition']> {
  const outcome = input.candidate?.execution.outcome ?? 'no-answer';
  const decision = decideAddition(await team.additionPolicy(), { outcome }, input.humanApproves ? null : input.evaluation, 'editor');
  const c = input.candidate;
  if (!decision.add || !c || !decision.status) return { ...decision, add: false, status: null, recordId: null, reason: c ? decision.reason : 'no candidate record' };
  const id = c.id ?? randomUUID();
  const record: NewRecordInput = {
    ...c,
    id,
    status: decision.status,
    provenance: c.provenance ?? 'agent',
    createdTask: teamIndex,
    execution: { ...c.execution, inputSimilarity: c.execution.inputSimilarity ?? similarity.inputSimilarity, outputSimilarity: c.execution.outputSimilarity ?? similarity.outputSimilarity },
  };
  const vector = input.embedding && input.embedderId ? { embeddings: [input.embedding], embedderId: input.embedderId } : {};
  const [stored] = await team.add([record], { trigger: 'agent', reason: decision.reason, ...(input.auditEvidence ? { evidence: { [id]: input.auditEvidence } } : {}), ...vector });
  const status = stored.status === 'active' || stored.status === 'pending' ? stored.status : decision.status;
  const merged = stored.id !== id;
  const reason = `${decision.reason}${status !== decision.status ? `; stored ${status} (the space's policy)` : ''}${merged ? `; merged into an identical ${status} record (×${stored.mergedCount ?? 1})` : ''}`;
  return { ...decision, status, recordId: stored.id, reason, ...(merged ? { merged: true } : {}) };
}

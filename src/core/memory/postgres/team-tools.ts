/**
 * memory_search, memory_record and memory_feedback on the team memory (PostgreSQL), the
 * same contract as MemoryTools on a SQLite file (MemoryToolApi): a search is a task of the
 * team's task log, exploratory until an outcome is reported (its retrievals are then logged,
 * atomic counter increments: team-credit.ts); a record goes through the space's addition
 * policy on the server (strict: pending until a reviewer approves); feedback writes Φ onto
 * the records of the search the client used (else those the recorded code follows).
 *
 * Retrieval is hybrid: questions and records are embedded with the space's shared embedder
 * (the unfitted hashing embedder whose dimension the space's meta names, team-embedder.ts),
 * so the dense side (HNSW) and the keyword side (tsvector) both answer.
 *
 * Offline: when the server cannot be reached, every tool fails with UNREACHABLE and says
 * so (memory_search: no shared records returned; writes: nothing stored). The connection
 * is retried on the next call, with backoff inside each call (TeamMemoryStore.withClient).
 */
import { AgentMemoryError, isAgentMemoryError } from '../../errors';
import type { Logger } from '../../logger';
import { redactText } from '../../security/redact';
import { alreadyRecorded, assertSearched, cancelledRecord, citationRootOf, clientLabel, evaluationOf, GROUND_TRUTH, MemoryToolApi, testsKept, parseToolInput, searchResultItem, TOOL_ORIGIN, ToolClient, ToolTaskLogSchema } from '../../tools/memory-tools';
import { resolveCitations } from '../../tools/citations';
import { checkUsed, countedLog, creditOf, feedbackNote, usedWithoutRetrieval } from '../../tools/tool-credit';
import { outcomeWorked } from '../types';
import { countTeamRetrievals, markTeamCredit, teamCredited, teamVerdicts } from './team-credit';
import { DEFAULT_MIN_RELEVANCE, hasContentWords, relevanceScorer } from '../search/relevance';
import { DEFAULT_TOOL_K, FeedbackInput, FeedbackOutput, RecordInput, RecordOutput, SearchInput, SearchOutput } from '../../tools/tool-schemas';
import type { HashingEmbedder } from '../../similarity/hashing-embedder';
import type { TeamMemoryStore } from './team-store';
import { searchTeam, searchTeamKept } from './team-search';
import { teamShapesFor } from './team-shapes';
import type { DomainValues } from '../search/domain-values';
import { beginTeamTask, finishTeamTask, setTeamUtility, type TeamTaskFinish } from './team-utility';

/** Connected or not, as the last call found it (for a status bar or a health line). */
export type TeamStatus = 'connected' | 'offline';

export interface TeamToolsDeps {
  /** The store, connecting on first use (a rejection: the server is unreachable now). */
  team(): Promise<TeamMemoryStore>;
  logger: Logger;
  /** Folder relative citation paths resolve against (default: the process's working directory). */
  citationRoot?(): string;
  /** Whether memory_search re-ranks as the personal memory does (team-shapes.ts: the fused order until the space is read); default no. */
  rerank?: () => boolean;
  /**
   * The values of the database the agent queries (the editor's agent database, `mcp --values-from`): the
   * re-ranking applies only with them (TeamShapes.applies). Default: none (a re-ranked search is the fused one).
   */
  domainValues?: () => Promise<DomainValues | null>;
}

interface ToolTask {
  taskIndex: number;
  log: Record<string, unknown> & ReturnType<typeof ToolTaskLogSchema.parse>;
  /** Who judged the task's Φ so far (null: nobody). */
  evaluator: string | null;
  /** The code a memory_record stored for the task (null: none yet). */
  code: string | null;
  language: string | null;
}

export class TeamMemoryTools implements MemoryToolApi {
  private state: TeamStatus = 'connected';
  /** The space's shared embedder once its meta names one (it never changes after). */
  private embedder: { team: TeamMemoryStore; embedder: HashingEmbedder } | undefined;

  constructor(private readonly deps: TeamToolsDeps) {}

  get status(): TeamStatus {
    return this.state;
  }

  /** memory_search: the K best active shared records; the retrieval is logged as a team task. */
  async search(input: unknown, client: ToolClient): Promise<SearchOutput> {
    const args = parseToolInput(SearchInput, input, 'memory_search');
    // A query without content words (`%_%`) matches nothing: no task is begun, nothing is logged.
    if (!hasContentWords(args.query)) return { retrievalId: '', results: [] };
    return this.online('memory_search', 'memory_search returned no shared records; continue the task without them and search again later', async (team) => {
      const embedder = await this.sharedEmbedder(team);
      // Values that cannot be had (the personal app did not open): none, the fused order; the search itself goes on.
      const rerank = this.deps.rerank?.() ? teamShapesFor(team, { logger: this.deps.logger, domainValues: await this.deps.domainValues?.().catch(() => null) }) : undefined;
      const k = args.k ?? DEFAULT_TOOL_K;
      const workedOnly = args.include_failures !== true;
      // The floor as memory_search applies it (relevance.ts); the team memory does not give document frequencies, so a
      // word counts as known to the space when the record holds it (relevance = the share of the query's words it holds).
      const relevance = relevanceScorer(args.query, () => null);
      const floor = args.min_score ?? DEFAULT_MIN_RELEVANCE;
      // Without include_failures a failed record is never returned: the search looks deeper until k that worked come back.
      const vector = embedder.embedSync(redactText(args.query));
      const found = workedOnly ? await searchTeamKept(team, args.query, vector, k, (h) => outcomeWorked(h.record.execution.outcome), { rerank }) : await searchTeam(team, args.query, vector, k, { rerank });
      const scored = found.map((h) => ({ ...h, relevance: relevance(h.record.question, h.record.execution.code) }));
      const hits = scored.filter((h) => h.relevance >= floor);
      const taskIndex = await beginTeamTask(team, args.query);
      // Exploratory until an outcome is reported: no retrieval is logged or counted yet (team-credit.ts).
      const log = { origin: TOOL_ORIGIN, client: clientLabel(client), demonstrations: hits.map((h) => ({ recordId: h.record.id, inputSimilarity: h.denseScore ?? null })), counted: false };
      await this.finishTask(team, taskIndex, { log });
      const root = citationRootOf(this.deps);
      const verdicts = await teamVerdicts(team, hits.map((h) => h.record));
      return { retrievalId: String(taskIndex), results: hits.map((h) => searchResultItem(h.record, h.denseScore ?? null, h.identical, root, verdicts.get(h.record.id), h.relevance)) };
    });
  }

  /** memory_record: a finished task of another agent, added under the space's addition policy. */
  async record(input: unknown, client: ToolClient, signal?: AbortSignal): Promise<RecordOutput> {
    const args = parseToolInput(RecordInput, input, 'memory_record');
    const source = args.source ?? 'self';
    const evaluation = evaluationOf(args.outcome, source, client);
    const label = clientLabel(client);
    return this.online('memory_record', 'nothing was stored; record the task again when the team memory is back', async (team) => {
      // Resolved before anything is written: a space whose embedder this client cannot compute fails with nothing stored.
      const embedder = await this.sharedEmbedder(team);
      if (args.used !== undefined && args.retrievalId === undefined) throw usedWithoutRetrieval();
      const existing = args.retrievalId === undefined ? undefined : await this.toolTask(team, args.retrievalId);
      if (existing?.log.recorded) throw alreadyRecorded(args.retrievalId!);
      const used = existing ? checkUsed(args.used, existing.log.demonstrations, args.retrievalId!, 'memory_record') : undefined;
      if (signal?.aborted) throw cancelledRecord();
      // Claimed in one statement: of several memory_record calls on one retrieval (any clients, at once) one goes on.
      if (existing && !(await claimRecording(team, existing.taskIndex))) throw alreadyRecorded(args.retrievalId!);
      let stored = false;
      try {
        const taskIndex = existing?.taskIndex ?? (await beginTeamTask(team, args.question));
        let credited: string[] | undefined;
        if (existing) {
          await countTeamRetrievals(team, taskIndex, existing.log);
          credited = await teamCredited(team, existing.log, creditOf(used, args.code), args.code, args.language);
          await markTeamCredit(team, taskIndex, credited);
        }
        if (existing && existing.log.demonstrations.length > 0) credited = await setTeamUtility(team, taskIndex, evaluation.utility!, evaluation.evaluator);
        const outcome = args.outcome === 'success' ? 'success' : 'error';
        let output: RecordOutput;
        if (outcome !== 'success') {
          output = { id: null, status: 'not-added', reason: 'a failed task is not added to the team memory (its outcome was credited)', retrievalId: String(taskIndex), ...(credited ? { credited } : {}) };
        } else {
          const [rec] = await team.add(
            [{
              question: args.question,
              execution: { code: args.code, language: args.language, answer: args.answer ?? null, outcome, demonstrationIds: existing?.log.demonstrations.map((d) => d.recordId) ?? [] },
              provenance: 'agent',
              metadata: {
                taskIndex, via: client.via, client: label, outcomeSource: source,
                ...(args.citations?.length ? { citations: resolveCitations(args.citations, citationRootOf(this.deps)) } : {}),
              },
            }],
            { trigger: 'agent', reason: `memory_record by ${label}`, evidence: {}, embedder },
          );
          stored = true;
          const pending = rec.status === 'pending';
          output = { id: rec.id, status: pending ? 'pending' : 'active', reason: pending ? 'strict addition: waits for a reviewer to approve it' : 'added to the team memory', retrievalId: String(taskIndex), ...(credited ? { credited } : {}) };
        }
        await this.finishTask(team, taskIndex, {
          language: args.language, code: args.code, answer: JSON.stringify(args.answer ?? null), outcome, recordId: output.id,
          log: { ...(existing ? countedLog(existing.log) : { origin: TOOL_ORIGIN, demonstrations: [] }), recorded: true, recordedBy: label, outcomeSource: source },
        });
        return output;
      } catch (error) {
        // Nothing of this call was stored: the retrieval can be recorded again.
        if (existing && !stored) await releaseRecording(team, existing.taskIndex).catch(() => undefined);
        throw error;
      }
    });
  }

  /** memory_feedback: Φ of a retrieval's task onto the records it returned. */
  async feedback(input: unknown, client: ToolClient): Promise<FeedbackOutput> {
    const args = parseToolInput(FeedbackInput, input, 'memory_feedback');
    const evaluation = evaluationOf(args.outcome, args.source ?? 'self', client);
    return this.online('memory_feedback', 'the outcome was not recorded; send it again when the team memory is back', async (team) => {
      const task = await this.toolTask(team, args.retrievalId);
      assertSearched(task.log, args.retrievalId);
      if (evaluation.evaluator !== GROUND_TRUTH && task.evaluator === GROUND_TRUTH) throw testsKept(args.retrievalId);
      const used = checkUsed(args.used, task.log.demonstrations, args.retrievalId, 'memory_feedback');
      await countTeamRetrievals(team, task.taskIndex, task.log);
      await markTeamCredit(team, task.taskIndex, await teamCredited(team, task.log, creditOf(used, task.code), task.code, task.language));
      const credited = await setTeamUtility(team, task.taskIndex, evaluation.utility!, evaluation.evaluator);
      await this.finishTask(team, task.taskIndex, { log: { ...countedLog(task.log), feedbackBy: clientLabel(client), outcomeSource: args.source ?? 'self' } });
      const note = feedbackNote(used, task.code, task.log.demonstrations.length, credited.length);
      return { updated: credited.length, utility: evaluation.utility!, evaluator: evaluation.evaluator, credited, ...(note ? { note } : {}) };
    });
  }

  /** Runs `fn` on the team store; an unreachable server becomes one UNREACHABLE error that says what it means for this tool. */
  private async online<T>(tool: string, consequence: string, fn: (team: TeamMemoryStore) => Promise<T>): Promise<T> {
    try {
      const out = await fn(await this.deps.team());
      this.state = 'connected';
      return out;
    } catch (error) {
      if (!isAgentMemoryError(error, 'UNREACHABLE')) throw error;
      if (this.state !== 'offline') this.deps.logger.warn(`[team] ${error.message}`);
      this.state = 'offline';
      throw new AgentMemoryError('UNREACHABLE', `Team memory unreachable: ${consequence}. (${error.message})`, error.details, { cause: error });
    }
  }

  /** The space's shared embedder (UNSUPPORTED when its meta names one this client cannot compute). */
  private async sharedEmbedder(team: TeamMemoryStore): Promise<HashingEmbedder> {
    if (this.embedder?.team === team) return this.embedder.embedder;
    const { embedder, stored } = await team.sharedEmbedder();
    // Not named yet: the default, claimed by the first record written; read again until then.
    if (stored) this.embedder = { team, embedder };
    return embedder;
  }

  private async toolTask(team: TeamMemoryStore, retrievalId: string): Promise<ToolTask> {
    const r = await team.withClient(
      (c) => c.query<{ log: string; evaluator: string | null; code: string | null; language: string | null }>('SELECT log, evaluator, code, language FROM tasks WHERE space = $1 AND task_index = $2', [team.space, Number(retrievalId)]),
      'read a task',
      { retryBroken: true },
    );
    let parsed: unknown;
    try {
      parsed = r.rows[0] ? JSON.parse(r.rows[0].log) : undefined;
    } catch {
      parsed = undefined;
    }
    const log = ToolTaskLogSchema.passthrough().safeParse(parsed);
    if (!log.success) {
      throw new AgentMemoryError('NOT_FOUND', `No memory_search with retrievalId ${retrievalId} in space '${team.space}': pass the retrievalId a memory_search call returned. Nothing was written.`);
    }
    const row = r.rows[0];
    return { taskIndex: Number(retrievalId), log: log.data, evaluator: row.evaluator, code: row.code ?? null, language: row.language ?? null };
  }

  /** Finishes a task: its log and, for a record, what the agent ran (team-utility.ts). */
  private finishTask(team: TeamMemoryStore, taskIndex: number, done: TeamTaskFinish): Promise<void> {
    return finishTeamTask(team, taskIndex, done);
  }
}

/** Marks the task recorded unless it already is; false when another call got there first. */
async function claimRecording(team: TeamMemoryStore, taskIndex: number): Promise<boolean> {
  const r = await team.withClient(
    (c) => c.query(`UPDATE tasks SET log = (log::jsonb || '{"recorded": true}'::jsonb)::text WHERE space = $1 AND task_index = $2 AND (log::jsonb ->> 'recorded') IS DISTINCT FROM 'true'`, [team.space, taskIndex]),
    'claim a task for its record',
  );
  return r.rowCount === 1;
}

/** Undoes claimRecording after a record that failed (the task can be recorded again). */
async function releaseRecording(team: TeamMemoryStore, taskIndex: number): Promise<void> {
  await team.withClient((c) => c.query(`UPDATE tasks SET log = (log::jsonb - 'recorded')::text WHERE space = $1 AND task_index = $2`, [team.space, taskIndex]), 'release a task claim');
}

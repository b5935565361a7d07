/**
 * The agent's task pipeline on a space of the team memory (createTeamTaskMemory), for
 * `agent-memory task --db postgres://…` and the editor's Run Task in team mode, with the same generator, runner and evaluators as the
 * editor; the role memories are the space's (role_memories). Each task's result has the
 * shape the SQLite path prints (AgentTaskResult), so the two outputs compare.
 */
import { RoleMemories } from '../agent/role-memories';
import { toolboxDocs } from '../agent/runners';
import { EditorEvaluator, GoldEvaluator } from '../agent/task-evaluators';
import { NO_GOLD_LOG_FIELD, noGoldStatus } from '../agent/gold-answer';
import { runTaskPipeline } from '../agent/task-pipeline';
import { taskResultOf } from '../app/task-result';
import type { AgentTaskResult } from '../app/types';
import { createBenchSession } from '../bench/session';
import type { Logger } from '../logger';
import { createTeamTaskMemory } from '../memory/postgres/team-task-memory';
import type { TeamMemoryStore } from '../memory/postgres/team-store';
import type { TeamSweepInput } from '../memory/postgres/team-sweep';
import { codeSimilarity } from '../similarity/code';
import type { QuestionEmbedder } from '../similarity/embedder';
import { errorMessage, isAgentMemoryError } from '../errors';
import type { DomainValues } from '../memory/search/domain-values';
import { teamShapesFor } from '../memory/postgres/team-shapes';
import { KEYWORD_ONLY_EMBEDDER } from '../memory/postgres/team-task-memory';
import { redactText } from '../security/redact';

/**
 * The space's shared embedder (the unfitted hashing embedder its meta names), seeing the redacted
 * question as memory_record does, so task records carry the same vectors as MCP records. A space
 * whose embedder this client cannot compute (e.g. migrated from a file with a fitted one) runs on
 * keywords, said once in the log.
 */
async function teamQuestionEmbedder(team: TeamMemoryStore, logger: Logger): Promise<QuestionEmbedder> {
  try {
    const { embedder } = await team.sharedEmbedder();
    return { id: embedder.id, embedQuery: (text) => Promise.resolve(embedder.embedSync(redactText(text))) };
  } catch (error) {
    if (!isAgentMemoryError(error, 'UNSUPPORTED') && !isAgentMemoryError(error, 'EMBEDDER_MISMATCH')) throw error;
    logger.warn(`[team] tasks on space '${team.space}' retrieve by keywords and store records without vectors: ${error.message}`);
    return KEYWORD_ONLY_EMBEDDER;
  }
}

export interface TeamTaskOptions {
  language: 'python' | 'javascript';
  dataPath: string;
  k: number;
  endpoint?: { baseURL: string; model: string; apiKey?: string };
  sweep: TeamSweepInput | null;
  /**
   * Re-rank the demonstrations as the personal memory does (team-shapes.ts), with these values of the
   * agent's database for the value columns (null: the space's programs only); the space is read before the
   * first task. Absent: the fused order.
   */
  rerank?: { domainValues: DomainValues | null };
  logger: Logger;
  onResult(result: AgentTaskResult): void;
}

/** Runs `items` one after the other on `team`; resolves once every write of every task was committed. */
export async function runTeamTasks(team: TeamMemoryStore, items: { question: string; answer?: unknown }[], options: TeamTaskOptions): Promise<void> {
  const { logger, language } = options;
  const embedder = await teamQuestionEmbedder(team, logger);
  const shapes = options.rerank ? teamShapesFor(team, { logger, domainValues: options.rerank.domainValues }) : undefined;
  // Read before the first task, so every task is re-ranked; a space that cannot be read keeps the fused order (said in the log).
  // Without the data's values the re-ranking does not apply (TeamShapes.applies): nothing is read.
  if (shapes?.applies) await shapes.load().catch((error: unknown) => logger.warn(`[team] the re-ranking could not read space '${team.space}' (${redactText(errorMessage(error))}); tasks keep the fused order.`));
  const shared = createTeamTaskMemory(team, { logger, codeSimilarity: (a, b, lang) => codeSimilarity(a, b, lang), sweep: options.sweep, embedder, rerank: shapes });
  const session = createBenchSession({ databasePath: options.dataPath, language, endpoint: options.endpoint, logger });
  try {
    const { generator, judge, run } = session.deps;
    const roles = (await RoleMemories.load(shared.roles, logger)).forModel(judge);
    const policy = await team.additionPolicy();
    for (const item of items) {
      // A gold answer that is empty, null or a lone 0 on this database checks nothing (gold-answer.ts).
      const noGold = item.answer === undefined ? undefined : noGoldStatus(item.answer);
      const evaluator = item.answer === undefined || noGold ? new EditorEvaluator(policy, judge ?? null, logger) : new GoldEvaluator(item.answer, policy, judge);
      const r = await runTaskPipeline(
        { memory: shared.memory, retriever: shared.retriever, embedder: shared.embedder, generator, evaluator, run, toolboxDocs, roles, modelKind: judge ? 'llm' : 'reuse', logger },
        item.question,
        { databasePath: options.dataPath, language, k: options.k, ...(noGold ? { logExtra: { [NO_GOLD_LOG_FIELD]: noGold } } : {}) },
      );
      options.onResult(taskResultOf(r, item.question, language, r.after.taskIndex));
    }
    await shared.settled();
  } finally {
    session.dispose();
  }
}

/**
 * What the user sees of one task (AgentTaskResult), built from the task pipeline's result, once
 * for the personal memory (agent-service.ts) and the team memory (core/team/team-tasks.ts).
 */
import type { TaskPipelineResult } from '../agent/task-pipeline';
import type { AgentTaskResult } from './types';

/** `taskIndex`: the index the task is known by (the team memory numbers tasks team-wide). */
export function taskResultOf(r: TaskPipelineResult, question: string, language: AgentTaskResult['language'], taskIndex: number): AgentTaskResult {
  const { run, after } = r;
  return {
    taskIndex,
    question,
    model: run.model,
    language,
    code: run.code,
    answer: run.answer,
    outcome: run.outcome,
    verdict: r.verdict,
    modelKind: r.modelKind,
    attempts: run.attempts.length,
    demonstrations: run.demonstrations.map((d) => ({ recordId: d.recordId, question: d.question, inputSimilarity: d.inputSimilarity, code: d.code, shown: d.shown })),
    utility: after.utility,
    addition: { added: after.addition.recordId !== null, recordId: after.addition.recordId, status: after.addition.status ?? null, reason: after.addition.reason, ...(after.addition.merged ? { merged: true } : {}) },
    deletions: after.deletions.map((d) => ({ rule: d.ruleId, policy: d.policy, recordIds: d.recordIds, ...(d.proposed?.length ? { proposed: d.proposed } : {}), ...(d.largeProposed ? { large: true } : {}) })),
    inputSimilarity: after.similarity.inputSimilarity,
    outputSimilarity: after.similarity.outputSimilarity,
    ...(run.gaveUp ? { error: run.gaveUp } : {}),
    durationMs: r.durationMs,
  };
}

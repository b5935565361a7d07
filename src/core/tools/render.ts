/** Text renderings of the memory tools' results (beside the structured content). */
import { NOTHING_RELEVANT } from '../memory/search/relevance';
import type { FeedbackOutput, RecordOutput, SearchOutput, ToolName } from './tool-schemas';

const fmt = (n: number | null) => (n === null ? '–' : n.toFixed(2));

export function renderSearch(out: SearchOutput): string {
  if (out.results.length === 0) return `No result: ${NOTHING_RELEVANT} (retrievalId ${out.retrievalId}). Continue without the memory; a lower min_score returns less related records.`;
  const parts = out.results.map(
    (r, i) =>
      `${i + 1}. ${r.question}\n   id ${r.id} · ${r.language} · utility ${fmt(r.utility)} · retrieved ${r.retrievals}× · similarity ${fmt(r.similarity)}${r.relevance === undefined ? '' : ` · relevance ${fmt(r.relevance)}`}\n` +
      '```' + r.language + '\n' + r.code + '\n```',
  );
  return `retrievalId ${out.retrievalId}: ${out.results.length} record(s), best first.\n\n${parts.join('\n\n')}\n\nPass retrievalId ${out.retrievalId} to memory_record or memory_feedback once you know the outcome.`;
}

export function renderRecord(out: RecordOutput): string {
  if (out.id === null) return `Not stored (${out.reason}).`;
  const what = out.status === 'pending' ? 'Stored as pending: it becomes retrievable once the user approves it in the Agent Memory sidebar' : 'Stored and retrievable';
  return `${what}. Record ${out.id} (${out.reason}).`;
}

export function renderFeedback(out: FeedbackOutput): string {
  return `Utility Φ = ${out.utility} (${out.evaluator}) credited to ${out.updated} record(s).`;
}

export function renderToolResult(name: ToolName, result: SearchOutput | RecordOutput | FeedbackOutput): string {
  switch (name) {
    case 'memory_search':
      return renderSearch(result as SearchOutput);
    case 'memory_record':
      return renderRecord(result as RecordOutput);
    case 'memory_feedback':
      return renderFeedback(result as FeedbackOutput);
  }
}

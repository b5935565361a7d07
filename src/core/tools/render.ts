/** Text renderings of the memory tools' results (beside the structured content). */
import { outcomeWorked } from '../memory/types';
import { NOTHING_RELEVANT } from '../memory/search/relevance';
import type { FeedbackOutput, RecordOutput, SearchOutput, ToolName } from './tool-schemas';

const fmt = (n: number | null) => (n === null ? '–' : n.toFixed(2));

type SearchItem = SearchOutput['results'][number];

const verdictText = (r: SearchItem): string => (r.verdict ? `verdict ${r.verdict.kind} (${r.verdict.source})` : '');

/** One result: a failed record says so before anything else, so no reader takes its code for a solution. */
function renderItem(r: SearchItem, i: number): string {
  const verdict = verdictText(r);
  const head = outcomeWorked(r.outcome)
    ? `${i + 1}. ${r.question}`
    : `${i + 1}. FAILED — outcome ${r.outcome}${verdict ? `, ${verdict}` : ''}: this code did not work; do not reuse it as a solution.\n   ${r.question}`;
  const facts = [`id ${r.id}`, r.language, `outcome ${r.outcome}`, ...(verdict ? [verdict] : []), `utility ${fmt(r.utility)}`, `retrieved ${r.retrievals}×`, `similarity ${fmt(r.similarity)}`, ...(r.relevance === undefined ? [] : [`relevance ${fmt(r.relevance)}`])];
  return `${head}\n   ${facts.join(' · ')}\n` + '```' + r.language + '\n' + r.code + '\n```';
}

export function renderSearch(out: SearchOutput): string {
  if (out.results.length === 0) return `No result: ${NOTHING_RELEVANT} (retrievalId ${out.retrievalId}). Continue without the memory; a lower min_score returns less related records, and records whose code failed are returned only with include_failures: true.`;
  const failed = out.results.filter((r) => !outcomeWorked(r.outcome)).length;
  const failures = failed > 0 ? ` ${failed} of them FAILED (labelled).` : '';
  return (
    `retrievalId ${out.retrievalId}: ${out.results.length} record(s), best first.${failures}\n\n${out.results.map(renderItem).join('\n\n')}\n\n` +
    `Pass retrievalId ${out.retrievalId} to memory_record or memory_feedback once you know the outcome, with used: the ids you used (until then this search counts as no retrieval).`
  );
}

const creditText = (ids: readonly string[]): string => (ids.length === 0 ? 'no record' : `${ids.length} record(s): ${ids.join(', ')}`);

export function renderRecord(out: RecordOutput): string {
  const credit = out.credited ? ` The outcome was credited to ${creditText(out.credited)} of retrieval ${out.retrievalId}.` : '';
  if (out.id === null) return `Not stored (${out.reason}).${credit}`;
  const what = out.status === 'pending' ? 'Stored as pending: it becomes retrievable once the user approves it in the Agent Memory sidebar' : 'Stored and retrievable';
  return `${what}. Record ${out.id} (${out.reason}).${credit}`;
}

export function renderFeedback(out: FeedbackOutput): string {
  return `Utility Φ = ${out.utility} (${out.evaluator}) credited to ${creditText(out.credited)}.${out.note ? ` ${out.note}` : ''}`;
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

import { AgentMemoryError } from '../../errors';
import type { RetrievedDemonstration } from '../../memory/demonstration';
import type { ChatMessage } from '../model/types';

/** Default prompt budget in tokens (system + docs + demonstrations + question + debug turns). */
export const DEFAULT_PROMPT_BUDGET = 6000;

/** What the prompt shows of a retrieved demonstration (the one RetrievedDemonstration type, narrowed). */
export type Demonstration = Pick<RetrievedDemonstration, 'recordId' | 'question' | 'code' | 'inputSimilarity'>;

/** One debugging round: the failed code, the error, and the debugger's analysis. */
export interface DebugTurn {
  code: string;
  error: string;
  analysis: string;
}

export interface PromptParts {
  system: string;
  toolboxDocs: string;
  roleMemory?: string;
  demonstrations: Demonstration[];
  question: string;
  debugTurns: DebugTurn[];
  language: 'python' | 'javascript';
}

export interface BuiltPrompt {
  messages: ChatMessage[];
  tokens: number;
  keptDemonstrations: string[];
  droppedDemonstrations: string[];
  droppedDebugTurns: number;
}

interface Slot {
  kind: 'fixed' | 'demo' | 'debug';
  messages: ChatMessage[];
  tokens: number;
  similarity: number;
  order: number;
  recordId?: string;
}

/**
 * Builds the coder's chat prompt within a token budget. The budget is checked
 * after EVERY appended message: when it is exceeded, the lowest-similarity
 * demonstration goes first, then the oldest debug turn; if the fixed parts
 * alone do not fit, a CONFIG error says to raise the budget.
 *
 * @example
 * const p = buildPrompt({ system, toolboxDocs, demonstrations, question, debugTurns: [], language: 'python' }, 4000);
 * await model.chat(p.messages);
 */
export function buildPrompt(parts: PromptParts, budgetTokens = DEFAULT_PROMPT_BUDGET, countTokens: (text: string) => number = (t) => Math.ceil(t.length / 4)): BuiltPrompt {
  const slots: Slot[] = [];
  const dropped: string[] = [];
  let droppedDebug = 0;
  let order = 0;
  const total = () => slots.reduce((s, x) => s + x.tokens, 0);
  const cost = (ms: ChatMessage[]) => ms.reduce((s, m) => s + countTokens(m.content) + 4, 0);

  const append = (slot: Omit<Slot, 'tokens' | 'order'>) => {
    slots.push({ ...slot, tokens: cost(slot.messages), order: order++ });
    while (total() > budgetTokens) {
      const demos = slots.filter((s) => s.kind === 'demo');
      const debugs = slots.filter((s) => s.kind === 'debug');
      let victim: Slot | undefined;
      if (demos.length > 0) victim = demos.reduce((lo, s) => (s.similarity < lo.similarity ? s : lo));
      else if (debugs.length > 1 || (debugs.length === 1 && slot.kind !== 'debug')) victim = debugs[0];
      if (!victim) {
        throw new AgentMemoryError('CONFIG', `The prompt needs ${total()} tokens but the budget is ${budgetTokens}. Raise agentMemory.agent.promptBudgetTokens or shorten the question.`, { tokens: total(), budget: budgetTokens });
      }
      slots.splice(slots.indexOf(victim), 1);
      if (victim.kind === 'demo') dropped.push(victim.recordId!);
      else droppedDebug++;
    }
  };

  const lang = parts.language === 'python' ? 'python' : 'javascript';
  append({ kind: 'fixed', similarity: Infinity, messages: [{ role: 'system', content: `${parts.system}\n\n${parts.toolboxDocs}${parts.roleMemory ? `\n\n${parts.roleMemory}` : ''}` }] });
  const byRelevance = [...parts.demonstrations].sort((a, b) => (b.inputSimilarity ?? 0) - (a.inputSimilarity ?? 0));
  for (const d of byRelevance) {
    append({
      kind: 'demo',
      similarity: d.inputSimilarity ?? 0,
      recordId: d.recordId,
      messages: [
        { role: 'user', content: `Question: ${d.question}` },
        { role: 'assistant', content: '```' + lang + '\n' + d.code.trim() + '\n```' },
      ],
    });
  }
  append({ kind: 'fixed', similarity: Infinity, messages: [{ role: 'user', content: `Question: ${parts.question}` }] });
  for (const turn of parts.debugTurns) {
    append({
      kind: 'debug',
      similarity: Infinity,
      messages: [
        { role: 'assistant', content: turn.code.trim() ? '```' + lang + '\n' + turn.code.trim() + '\n```' : '(a reply without a runnable program)' },
        { role: 'user', content: `${turn.code.trim() ? 'Running that code' : 'Reading that reply'} failed:\n${turn.error}\n\nDebugger analysis: ${turn.analysis}\n\nWrite the corrected program for the question.` },
      ],
    });
  }
  // Demonstrations go before the question; debug turns after it, in order.
  const ordered = [...slots].sort((a, b) => a.order - b.order);
  return {
    messages: ordered.flatMap((s) => s.messages),
    tokens: total(),
    keptDemonstrations: ordered.filter((s) => s.kind === 'demo').map((s) => s.recordId!),
    droppedDemonstrations: dropped,
    droppedDebugTurns: droppedDebug,
  };
}

/**
 * SIMULATION — the coarse judge of the simulated agent, as a ChatModel so it
 * goes through the real judge path (judgeTask → prompt → "Yes"/"No" reply →
 * parse). It reads the question and the answer from the judge prompt, checks
 * the answer against the task's ground truth, and says "Yes" to a correct
 * answer with probability judgeTruePositive and to a wrong one with
 * probability judgeFalsePositive (draws fixed by seed, question and answer).
 */
import type { ChatMessage, ChatModel, ChatOptions, ChatResult } from '../../agent/model/types';
import { answersMatch } from '../../policy/answers';
import type { BenchTask } from '../task-file';
import type { SimulationParameters } from './parameters';
import { draw } from './simulated-generator';

export class SimulatedJudge implements ChatModel {
  readonly model = 'simulated judge (simulation)';
  private readonly byQuestion = new Map<string, BenchTask>();
  calls = 0;

  constructor(tasks: readonly BenchTask[], private readonly params: Pick<SimulationParameters, 'judgeTruePositive' | 'judgeFalsePositive'>, private readonly seed: number) {
    for (const t of tasks) if (!this.byQuestion.has(t.question)) this.byQuestion.set(t.question, t);
  }

  async chat(messages: ChatMessage[], _options?: ChatOptions): Promise<ChatResult> {
    this.calls++;
    const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
    const question = /^Question: (.*)$/m.exec(prompt)?.[1] ?? '';
    const outcome = /^Execution outcome: (.*)$/m.exec(prompt)?.[1] ?? '';
    const answerText = /^Answer set by the code: (.*)$/m.exec(prompt)?.[1] ?? 'undefined';
    const task = this.byQuestion.get(question);
    let correct = false;
    if (task && outcome === 'success') {
      try {
        correct = answersMatch(task.answer, JSON.parse(answerText));
      } catch {
        // A clipped (very long) answer: compare the visible prefix.
        correct = answerText.startsWith(JSON.stringify(task.answer).slice(0, 200));
      }
    }
    const yes = draw(this.seed, question, 'judge', answerText) < (correct ? this.params.judgeTruePositive : this.params.judgeFalsePositive);
    const text = `${yes ? 'Yes' : 'No'}\nsimulation: the answer is ${correct ? '' : 'not '}correct; the simulated judge says ${yes ? 'yes' : 'no'}.`;
    return { text, usage: { promptTokens: 0, completionTokens: 0 }, latencyMs: 0, attempts: 1, model: this.model, finishReason: 'stop' };
  }
}

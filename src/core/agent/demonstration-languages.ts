/**
 * Which records may be shown to the built-in agent as demonstrations: only records of
 * the task's own language. The memory is shared with other agents (MCP clients, chat
 * tools) that store code in any language; a Go or Rust record in a Python prompt would
 * teach the wrong syntax and, for the reuse model, be adapted and run as Python. The
 * decision is made here, once; the task pipeline asks the retriever for these languages.
 * `memory_search` (MCP, chat tools) is not filtered: other agents see every language.
 */
import type { AgentLanguage, Language } from '../memory/types';

/**
 * The record languages compatible with each task language: the language's own name and
 * the short names other agents commonly record it under (record languages are stored in
 * lower case). Nothing else: TypeScript is not JavaScript to the sandbox.
 */
export const DEMONSTRATION_LANGUAGES: Readonly<Record<AgentLanguage, readonly Language[]>> = {
  python: ['python', 'python3', 'py'],
  javascript: ['javascript', 'js', 'node', 'nodejs'],
};

/**
 * The record languages whose code may be a demonstration for a task in `taskLanguage`.
 *
 * @example
 * demonstrationLanguages('python'); // ['python', 'python3', 'py']
 */
export function demonstrationLanguages(taskLanguage: AgentLanguage): readonly Language[] {
  return DEMONSTRATION_LANGUAGES[taskLanguage];
}

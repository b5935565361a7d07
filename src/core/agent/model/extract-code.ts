/**
 * Pulls the program out of a model reply and checks that it parses.
 *
 * Choice rule (documented behaviour):
 * 1. `<think>…</think>` reasoning sections are dropped first (drafts live there).
 * 2. Fenced blocks (``` or ~~~, any indentation, CommonMark closing rule) are
 *    collected. Blocks tagged with the requested language win
 *    (python: python, py, python3, py3; javascript: javascript, js, node, nodejs,
 *    mjs, cjs); if there are none, untagged blocks are used; blocks tagged with
 *    another language (```sql, ```text, ```json …) are never taken as the program.
 * 3. Among the candidates the LARGEST block wins, ties going to the later one:
 *    the full program is the biggest block, while smaller ones are usage
 *    examples, fragments or the snippet being corrected.
 * 4. An unclosed fence (reply cut off by the token limit) runs to the end of the text.
 * 5. With no fence at all, the whole reply is taken as code — and must then parse.
 * The chosen code is syntax-checked (acorn for JavaScript, @lezer/python for
 * Python); prose or truncated code → AgentMemoryError('MODEL') with
 * `details.kind` 'no-code' or 'syntax' (and line/column).
 *
 * @example
 * ```ts
 * extractCode('Here:\n```python\nanswer = 42\n```', 'python'); // 'answer = 42'
 * ```
 */
import * as acorn from 'acorn';
import { parser as pythonParser } from '@lezer/python';
import { AgentMemoryError } from '../../errors';

export type CodeLanguage = 'python' | 'javascript';

export interface CodeBlock {
  /** Lower-cased first word of the info string ('' when untagged). */
  tag: string;
  code: string;
  /** False when the fence was never closed. */
  closed: boolean;
}

export interface ExtractCodeOptions {
  /** Syntax-check the result (default true). */
  validate?: boolean;
}

const LANGUAGE_TAGS: Record<CodeLanguage, readonly string[]> = {
  python: ['python', 'py', 'python3', 'py3'],
  javascript: ['javascript', 'js', 'node', 'nodejs', 'mjs', 'cjs'],
};

/** Extracts the program in `language` from a model reply; see the module doc for the rule. */
export function extractCode(text: string, language: CodeLanguage, options: ExtractCodeOptions = {}): string {
  const cleaned = stripThinking(text);
  const blocks = findCodeBlocks(cleaned);
  let code: string;
  if (blocks.length === 0) {
    code = cleaned.trim();
  } else {
    const tagged = blocks.filter((b) => LANGUAGE_TAGS[language].includes(b.tag));
    const candidates = tagged.length > 0 ? tagged : blocks.filter((b) => b.tag === '');
    if (candidates.length === 0) {
      const seen = [...new Set(blocks.map((b) => b.tag))].join(', ');
      throw new AgentMemoryError('MODEL', `The model reply has code blocks (${seen}) but none in ${language}. Ask for a \`\`\`${language} block.`, {
        kind: 'no-code',
        tags: seen,
      });
    }
    code = candidates.reduce((best, b) => (b.code.trim().length >= best.code.trim().length ? b : best)).code.trim();
  }
  if (code.length === 0) {
    throw new AgentMemoryError('MODEL', `The model reply contains no ${language} code.`, { kind: 'no-code' });
  }
  if (options.validate !== false) checkSyntax(code, language);
  return code;
}

/** All fenced code blocks of a Markdown text, in order. */
export function findCodeBlocks(text: string): CodeBlock[] {
  const lines = text.split(/\r?\n/);
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body: string[] = [];
    let closed = false;
    for (i = i + 1; i < lines.length; i++) {
      const close = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).exec(lines[i]);
      if (close) {
        closed = true;
        break;
      }
      body.push(lines[i]);
    }
    blocks.push({ tag: info.toLowerCase(), code: dedent(body, indent.length).join('\n'), closed });
  }
  return blocks;
}

/** Throws AgentMemoryError('MODEL', kind 'syntax') when `code` does not parse. */
export function checkSyntax(code: string, language: CodeLanguage): void {
  const error = language === 'javascript' ? javascriptSyntaxError(code) : pythonSyntaxError(code);
  if (!error) return;
  const preview = code.length > 120 ? `${code.slice(0, 120)}…` : code;
  throw new AgentMemoryError(
    'MODEL',
    `The model's ${language} code does not parse (line ${error.line}, column ${error.column}: ${error.message}). It may be prose or cut off by the token limit: ${JSON.stringify(preview)}`,
    { kind: 'syntax', ...error },
  );
}

interface SyntaxProblem {
  line: number;
  column: number;
  message: string;
}

function javascriptSyntaxError(code: string): SyntaxProblem | undefined {
  try {
    acorn.parse(code, { ecmaVersion: 'latest', sourceType: 'script', allowAwaitOutsideFunction: true, allowReturnOutsideFunction: true, allowHashBang: true });
    return undefined;
  } catch (error) {
    const loc = (error as { loc?: { line: number; column: number } }).loc;
    return { line: loc?.line ?? 1, column: (loc?.column ?? 0) + 1, message: (error as Error).message.replace(/\s*\(\d+:\d+\)$/, '') };
  }
}

function pythonSyntaxError(code: string): SyntaxProblem | undefined {
  const tree = pythonParser.parse(code);
  let at = -1;
  tree.iterate({
    enter: (node) => {
      if (at >= 0) return false;
      if (node.type.isError) at = node.from;
      return undefined;
    },
  });
  if (at < 0) return undefined;
  const before = code.slice(0, at).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1, message: 'invalid syntax' };
}

/** Drops `<think>…</think>` sections (and an unopened leading one) emitted by reasoning models. */
export function stripThinking(text: string): string {
  return text.replace(/<think>[\s\S]*?<\/think>/gi, '').replace(/^[\s\S]*<\/think>/i, '');
}

/** Removes up to `indent` leading spaces (the fence's own indentation) from each line. */
function dedent(lines: string[], indent: number): string[] {
  if (indent === 0) return lines;
  return lines.map((l) => l.replace(new RegExp(`^ {0,${indent}}`), ''));
}

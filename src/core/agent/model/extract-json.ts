import type { z } from 'zod';
import { AgentMemoryError } from '../../errors';
import { findCodeBlocks, stripThinking } from './extract-code';

/** Bounds the balanced-span scan on pathological replies. */
const MAX_SPAN_TRIES = 64;

/**
 * Finds the JSON value in a model reply: a ```json (or untagged) fenced block
 * (the last one that parses), else the whole reply, else the first balanced
 * `{…}` / `[…]` span that parses. Throws AgentMemoryError('MODEL', kind 'no-json').
 *
 * @example
 * ```ts
 * extractJson('Sure!\n```json\n{"ok": true}\n```'); // { ok: true }
 * ```
 */
export function extractJson(text: string): unknown {
  const cleaned = stripThinking(text);
  const blocks = findCodeBlocks(cleaned).filter((b) => b.tag === 'json' || b.tag === 'jsonc' || b.tag === '');
  for (const block of blocks.reverse()) {
    const value = tryParse(block.code);
    if (value.ok) return value.value;
  }
  const whole = tryParse(cleaned.trim());
  if (whole.ok) return whole.value;
  let tries = 0;
  for (let start = 0; start < cleaned.length && tries < MAX_SPAN_TRIES; start++) {
    const ch = cleaned[start];
    if (ch !== '{' && ch !== '[') continue;
    tries++;
    const end = balancedEnd(cleaned, start);
    if (end < 0) continue;
    const value = tryParse(cleaned.slice(start, end + 1));
    if (value.ok) return value.value;
  }
  const preview = text.length > 160 ? `${text.slice(0, 160)}…` : text;
  throw new AgentMemoryError('MODEL', `The model reply contains no valid JSON: ${JSON.stringify(preview)}`, { kind: 'no-json' });
}

/**
 * {@link extractJson} then zod validation. Throws AgentMemoryError('MODEL',
 * kind 'invalid-json') naming each bad field.
 */
export function parseJsonReply<S extends z.ZodType>(text: string, schema: S, what: string): z.output<S> {
  const value = extractJson(text);
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  throw new AgentMemoryError('MODEL', `The model's ${what} JSON is invalid — ${problems}.`, { kind: 'invalid-json', issues: parsed.error.issues });
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.length === 0) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Index of the bracket closing the one at `start` (string-aware), or −1. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

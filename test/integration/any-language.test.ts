/**
 * Records in any language open in the editor (issue 35): a TypeScript, a Go and a SQL record
 * each show with their language mode, and no diagnostics are left for their documents, while
 * open or once closed. Real extension host; the records come in through the memory tools, as
 * an outside agent's memory_record writes them.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentMemoryApp } from '../../src/core/app/types';
import type { AgentMemoryExtensionApi } from '../../src/extension';
import { closeAllEditors, freshMemory, run, setSetting, waitFor } from './helpers';

const RECORDS = [
  { language: 'typescript', languageId: 'typescript', question: 'paginate an array in TypeScript', code: 'export function paginate<T>(items: T[], page: number, size: number): T[] {\n  return items.slice(page * size, (page + 1) * size);\n}\n' },
  { language: 'go', languageId: 'go', question: 'reverse a slice of ints in Go', code: 'func reverse(s []int) {\n\tfor i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {\n\t\ts[i], s[j] = s[j], s[i]\n\t}\n}\n' },
  { language: 'sql', languageId: 'sql', question: 'count the admissions per year', code: "SELECT strftime('%Y', admittime) AS year, COUNT(*) FROM admissions GROUP BY year;\n" },
];

describe('any-language records open with their language mode, no diagnostics left', function () {
  this.timeout(120_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;

  before(async () => {
    ({ api, app } = await freshMemory('any-language'));
    await setSetting(api, 'addition.policy', 'all');
  });
  after(closeAllEditors);

  for (const r of RECORDS) {
    it(`a ${r.language} record shows as ${r.languageId}, with its code, and leaves no diagnostics`, async () => {
      const out = await app.memoryTools().record({ question: r.question, code: r.code, language: r.language, outcome: 'success' }, { via: 'vscode-lm', name: 'any-language-test' });
      assert.ok(out.id, `the record was stored: ${out.reason}`);
      const uri = vscode.Uri.parse(await run<string>('agentMemory.openRecord', out.id));
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      assert.ok(doc, 'the record document is open');
      assert.equal(doc.languageId, r.languageId);
      assert.ok(doc.getText().includes(r.code.trim()), `the record's code is shown, not "Unknown Agent Memory document": ${doc.getText().slice(0, 120)}`);
      assert.ok(doc.getText().includes(r.question));
      // Language servers answer asynchronously: give them time to publish, then nothing may be there.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      assert.deepEqual(vscode.languages.getDiagnostics(uri), [], 'no diagnostics while open');
      await closeAllEditors();
      await waitFor(() => vscode.languages.getDiagnostics().every(([u, d]) => u.scheme !== 'agent-memory' || d.length === 0), 'no diagnostics left for agent-memory documents once closed');
    });
  }
});

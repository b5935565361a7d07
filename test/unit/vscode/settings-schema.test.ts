import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_RERANK } from '../../../src/core/memory/search/rerank';
import { parseSettings, SETTING_KEYS } from '../../../src/vscode/settings-schema';

interface ConfigProperty {
  type: string;
  default: unknown;
  markdownDescription?: string;
  description?: string;
  enum?: string[];
}
const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, ConfigProperty> } } };
const properties = pkg.contributes.configuration.properties;

describe('settings schema', () => {
  describe('parseSettings', () => {
    it('gives the paper defaults when nothing is configured', () => {
      const { settings, problems } = parseSettings(() => undefined);
      assert.deepEqual(problems, []);
      assert.equal(settings.retrieval.k, 4);
      assert.equal(settings.deletion.period, 200);
      assert.equal(settings.deletion.alpha, 0);
      assert.equal(settings.deletion.historyMinRetrievals, 5);
      assert.equal(settings.deletion.historyBetaStrict, 0.7);
      assert.equal(settings.deletion.historyBetaCoarse, 0.3);
      assert.equal(settings.addition.policy, 'strict');
    });

    it('re-ranks by default in the editor (and says so in package.json), while a search whose caller does not say stays fused', () => {
      const { settings } = parseSettings(() => undefined);
      assert.equal(settings.retrieval.rerank, true);
      assert.equal(properties['agentMemory.retrieval.rerank'].default, true);
      assert.equal(parseSettings((k) => (k === 'retrieval.rerank' ? false : undefined)).settings.retrieval.rerank, false);
      // The CLI, a hand-started MCP server and the benches: fused unless --rerank (their figures match the grids in docs/benchmarks.md and docs/results.md).
      assert.equal(DEFAULT_RERANK, false);
    });

    it('reads nested keys', () => {
      const values: Record<string, unknown> = { 'retrieval.k': 8, 'runner.language': 'javascript', databasePath: '/tmp/m.sqlite', 'misaligned.maxOutputSimilarity': 0.4 };
      const { settings } = parseSettings((k) => values[k]);
      assert.equal(settings.retrieval.k, 8);
      assert.equal(settings.runner.language, 'javascript');
      assert.equal(settings.databasePath, '/tmp/m.sqlite');
      assert.equal(settings.misaligned.maxOutputSimilarity, 0.4);
    });

    it('replaces each invalid value by its default and names it, keeping the valid ones', () => {
      const values: Record<string, unknown> = { 'retrieval.k': -3, 'addition.policy': 'sometimes', 'deletion.period': 50 };
      const { settings, problems } = parseSettings((k) => values[k]);
      assert.equal(settings.retrieval.k, 4);
      assert.equal(settings.addition.policy, 'strict');
      assert.equal(settings.deletion.period, 50);
      assert.equal(problems.length, 2);
      assert.ok(problems.includes('agentMemory.retrieval.k: must be at least 1 (using the default)'), problems.join(' | '));
      assert.ok(problems.some((p) => /^agentMemory\.addition\.policy: must be one of .*strict.* \(using the default\)$/.test(p)), problems.join(' | '));
    });
  });

  describe('package.json contributes.configuration', () => {
    it('declares exactly the schema keys', () => {
      assert.deepEqual(Object.keys(properties).sort(), SETTING_KEYS.map((k) => `agentMemory.${k}`).sort());
    });

    it('gives every setting a description and the schema default', () => {
      const defaults = parseSettings(() => undefined).settings;
      for (const key of SETTING_KEYS) {
        const prop = properties[`agentMemory.${key}`];
        assert.ok((prop.markdownDescription ?? prop.description ?? '').length > 10, `${key} needs a description`);
        const schemaDefault = key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], defaults);
        assert.deepEqual(prop.default, schemaDefault, `${key} default`);
      }
    });

    it('lists the same enum values as the schema', () => {
      for (const [key, prop] of Object.entries(properties)) {
        if (!prop.enum) continue;
        for (const value of prop.enum) {
          const { problems } = parseSettings((k) => (`agentMemory.${k}` === key ? value : undefined));
          assert.deepEqual(problems, [], `${key}=${value} accepted`);
        }
        const { problems } = parseSettings((k) => (`agentMemory.${k}` === key ? 'not-a-choice' : undefined));
        assert.equal(problems.length, 1, `${key} rejects values outside its enum`);
      }
    });
  });
});

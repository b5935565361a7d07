import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { TOOL_DEFINITIONS, TOOL_NAMES } from '../../../src/core/tools/tool-schemas';

const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: { languageModelTools: { name: string; modelDescription: string; inputSchema: unknown; when: string }[]; mcpServerDefinitionProviders: { id: string }[]; modelContextServerCollections: { id: string }[]; configuration: { properties: Record<string, { default: unknown }> } };
  scripts: Record<string, string>;
};

describe('package.json contributes the same memory tools as the MCP server', () => {
  it('has one language-model tool per tool, with the same description and input JSON Schema', () => {
    const tools = pkg.contributes.languageModelTools;
    assert.deepEqual(tools.map((t) => t.name), [...TOOL_NAMES]);
    for (const tool of tools) {
      const def = TOOL_DEFINITIONS[tool.name as keyof typeof TOOL_DEFINITIONS];
      const { $schema: _ignored, ...schema } = z.toJSONSchema(def.input, { io: 'input' }) as Record<string, unknown>;
      assert.deepEqual(tool.inputSchema, schema, `${tool.name}: regenerate the inputSchema from src/core/tools/tool-schemas.ts`);
      assert.equal(tool.modelDescription, def.description);
      assert.equal(tool.when, 'config.agentMemory.tools.enabled');
    }
  });

  it('declares the tools setting, the MCP server definition provider and the load benchmark', () => {
    assert.equal(pkg.contributes.configuration.properties['agentMemory.tools.enabled'].default, true);
    assert.deepEqual(pkg.contributes.mcpServerDefinitionProviders.map((p) => p.id), ['agentMemory.mcpServer']);
    // The same id under the name VS Code 1.100's preview API (code-server 4.100) requires.
    assert.deepEqual(pkg.contributes.modelContextServerCollections.map((p) => p.id), ['agentMemory.mcpServer']);
    assert.match(pkg.scripts['bench:mcp'], /src\/cli\/bench-mcp\.ts/);
  });
});

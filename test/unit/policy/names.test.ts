import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DELETION_POLICIES, POLICY_OPERATIONS, policyOf, operationOf } from '../../../src/core/policy/names';
import { SETTING_KEYS, SettingKeySchema, SettingsSchema, settingId } from '../../../src/core/settings';

const ROOT = path.join(__dirname, '..', '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, unknown> } };
};
const contributed = new Set(Object.keys(pkg.contributes.configuration.properties));
/** Top-level setting groups and keys (`deletion`, `capacity`, …): a name under one of them is a setting reference. */
const SETTING_ROOTS = new Set(Object.keys(SettingsSchema.shape));
/** `agentMemory.*` names that look like settings but are not, with the reason. */
const NOT_SETTINGS = new Map([
  ['agentMemory.model.apiKey', 'the SecretStorage key of the API key (src/vscode/secrets.ts)'],
  ['agentMemory.embedding.apiKey', 'the SecretStorage key of the embedding endpoint key (src/vscode/secrets.ts)'],
  ['agentMemory.team.password', 'the SecretStorage key of the team memory password (src/vscode/secrets.ts)'],
]);

function files(dir: string, extensions: string[]): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return files(full, extensions);
    return extensions.some((e) => entry.name.endsWith(e)) ? [full] : [];
  });
}

/** Every `agentMemory.<root>…` name in a text whose root is a setting group or key. */
function settingReferences(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/agentMemory\.([A-Za-z]+(?:\.[A-Za-z]+)*)/g)) {
    const root = match[1].split('.')[0];
    if (SETTING_ROOTS.has(root)) names.push(`agentMemory.${match[1]}`);
  }
  return names;
}

describe('every name once', () => {
  it('every agentMemory.* setting named in a source string, message or doc exists in package.json contributes.configuration', () => {
    const sources = [
      ...files(path.join(ROOT, 'src'), ['.ts']),
      ...files(path.join(ROOT, 'media'), ['.js', '.html']),
      ...files(path.join(ROOT, 'docs'), ['.md']),
      path.join(ROOT, 'README.md'),
      path.join(ROOT, 'package.json'),
    ];
    const unknown: string[] = [];
    let seen = 0;
    for (const file of sources) {
      for (const name of settingReferences(fs.readFileSync(file, 'utf8'))) {
        seen++;
        // A setting, or a group of settings (`agentMemory.deletion.*`), or a known non-setting id.
        const isGroup = [...contributed].some((key) => key.startsWith(`${name}.`));
        if (!contributed.has(name) && !isGroup && !NOT_SETTINGS.has(name)) unknown.push(`${path.relative(ROOT, file)}: ${name}`);
      }
    }
    assert.ok(seen > 20, `expected many setting references, found ${seen}`);
    assert.deepEqual(unknown, []);
  });

  it('the setting-name scanner catches a name that does not exist', () => {
    const names = settingReferences('Raise agentMemory.agent.promptBudgetTokenz or set agentMemory.deletion.capacity; see agentMemory.showLogs.');
    assert.deepEqual(names, ['agentMemory.agent.promptBudgetTokenz', 'agentMemory.deletion.capacity']);
    assert.deepEqual(names.filter((n) => !contributed.has(n)), names);
  });

  it('the setting keys are one typed list, the same as package.json', () => {
    assert.deepEqual([...SETTING_KEYS].map(settingId).sort(), [...contributed].sort());
    assert.equal(SettingKeySchema.safeParse('deletion.minActiveRecords').success, true);
    assert.equal(SettingKeySchema.safeParse('deletion.capacity').success, false);
  });

  it('policy operations are derived from the policy names, both ways', () => {
    assert.deepEqual(POLICY_OPERATIONS, DELETION_POLICIES.map((p) => `delete:${p}`));
    for (const policy of DELETION_POLICIES) assert.equal(policyOf(operationOf(policy)), policy);
  });

  it('no second definition of a policy, status or evaluator name list in src/', () => {
    // A zod enum or const array spelling these lists again outside their one home is a second definition.
    const lists = [
      { home: 'src/core/policy/names.ts', pattern: /\[\s*'fixed',\s*'all',\s*'coarse',\s*'strict'\s*\]/ },
      { home: 'src/core/policy/names.ts', pattern: /\[\s*'none',\s*'periodic',\s*'history',\s*'combined'/ },
      { home: 'src/core/policy/names.ts', pattern: /'strict:ground-truth',\s*'strict:human'/ },
      { home: 'src/core/memory/types.ts', pattern: /\[\s*'pending',\s*'active',\s*'deleted'\s*\]/ },
    ];
    for (const { home, pattern } of lists) {
      const found = files(path.join(ROOT, 'src'), ['.ts']).filter((f) => pattern.test(fs.readFileSync(f, 'utf8'))).map((f) => path.relative(ROOT, f));
      assert.deepEqual(found, [home], `${pattern} is defined in ${found.join(', ')}`);
    }
  });
});

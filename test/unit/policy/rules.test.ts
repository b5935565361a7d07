import { strict as assert } from 'node:assert';
import { defaultRules, evaluateRules, RuleSpecInput, RuleState } from '../../../src/core/policy/rules';

const state = (over: Partial<RuleState> = {}): RuleState => ({ taskIndex: 1, activeCount: 0, lastRunByRule: {}, ...over });

describe('rule engine', () => {
  const every: RuleSpecInput = { id: 'periodic-deletion', kind: 'every-n-tasks', everyTasks: 200, operation: 'delete:combined' };

  it('every-N fires when N tasks have passed since the last run (0 if never)', () => {
    assert.deepEqual(evaluateRules([every], state({ taskIndex: 199 })), []);
    const [f] = evaluateRules([every], state({ taskIndex: 200 }));
    assert.deepEqual({ ruleId: f.ruleId, operation: f.operation, trigger: f.trigger }, { ruleId: 'periodic-deletion', operation: 'delete:combined', trigger: 'rule:periodic-deletion' });
    assert.deepEqual(evaluateRules([every], state({ taskIndex: 399, lastRunByRule: { 'periodic-deletion': 200 } })), []);
    assert.equal(evaluateRules([every], state({ taskIndex: 400, lastRunByRule: { 'periodic-deletion': 200 } })).length, 1);
  });

  it('capacity fires only above capacity (rule capacity first, then the snapshot)', () => {
    const cap: RuleSpecInput = { id: 'capacity', kind: 'capacity-exceeded', operation: 'delete:capacity' };
    assert.deepEqual(evaluateRules([cap], state({ activeCount: 100, capacity: 100 })), []);
    assert.equal(evaluateRules([cap], state({ activeCount: 101, capacity: 100 }))[0].trigger, 'rule:capacity');
    assert.deepEqual(evaluateRules([cap], state({ activeCount: 101 })), []);
    assert.equal(evaluateRules([{ ...cap, capacity: 50 }], state({ activeCount: 51, capacity: 100 })).length, 1);
  });

  it('user command fires with trigger user and keeps the rule id', () => {
    const cmd: RuleSpecInput = { id: 'user-combined', kind: 'user-command', command: 'delete:combined', operation: 'delete:combined' };
    assert.deepEqual(evaluateRules([cmd], state()), []);
    const [f] = evaluateRules([cmd], state({ commands: ['delete:combined'] }));
    assert.equal(f.trigger, 'user');
    assert.equal(f.ruleId, 'user-combined');
  });

  it('utility drop names the records with at least n evaluated retrievals and mean ≤ β', () => {
    const drop: RuleSpecInput = { id: 'utility-drop', kind: 'utility-drop', minRetrievals: 5, beta: 0.7, operation: 'delete:history' };
    const [f] = evaluateRules([drop], state({
      utilityUpdates: [
        { recordId: 'low', meanUtility: 0.5, evaluatedCount: 6 },
        { recordId: 'at-n', meanUtility: 0.0, evaluatedCount: 5 },
        { recordId: 'few', meanUtility: 0.0, evaluatedCount: 4 },
        { recordId: 'high', meanUtility: 0.8, evaluatedCount: 9 },
        { recordId: 'edge', meanUtility: 0.7, evaluatedCount: 6 },
        { recordId: 'none', meanUtility: null, evaluatedCount: 0 },
      ],
    }));
    // count ≥ 5 and mean ≤ 0.7: low (6, 0.5), at-n (5, 0), edge (6, 0.7); not few (4), high (0.8), none (null).
    assert.deepEqual(f.recordIds, ['low', 'at-n', 'edge']);
    assert.deepEqual(evaluateRules([drop], state({ utilityUpdates: [{ recordId: 'high', meanUtility: 0.8, evaluatedCount: 9 }] })), []);
  });

  it('is deterministic and keeps rule order', () => {
    const rules = defaultRules('combined', { period: 10 });
    const s = state({ taskIndex: 10, commands: ['delete:combined'], utilityUpdates: [{ recordId: 'r', meanUtility: 0, evaluatedCount: 6 }] });
    const a = evaluateRules(rules, s);
    assert.deepEqual(a, evaluateRules(rules, s));
    assert.deepEqual(a.map((f) => f.ruleId), ['periodic-deletion', 'utility-drop', 'user-combined']);
  });

  it('default rules follow the paper schedule per setting', () => {
    assert.deepEqual(defaultRules('none'), []);
    assert.deepEqual(defaultRules('periodic').map((r) => [r.kind, r.operation]), [['every-n-tasks', 'delete:periodic'], ['user-command', 'delete:periodic']]);
    // Sliding window (default): after every task; fixed: every period.
    assert.equal((defaultRules('periodic', { period: 200 })[0] as { everyTasks: number }).everyTasks, 1);
    assert.equal((defaultRules('combined', { period: 200, periodicWindow: 'fixed' })[0] as { everyTasks: number }).everyTasks, 200);
    assert.deepEqual(defaultRules('history', { beta: 0.3 }).map((r) => r.kind), ['utility-drop', 'user-command']);
    assert.equal((defaultRules('history', { beta: 0.3 })[0] as { beta: number }).beta, 0.3);
    // §6.2: the capacity plan runs after every task (periodic, then one record if still over).
    assert.deepEqual(defaultRules('capacity', { capacity: 100 })[0], { id: 'capacity', kind: 'every-n-tasks', everyTasks: 1, operation: 'delete:capacity' });
  });
});

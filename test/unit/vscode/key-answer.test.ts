import { strict as assert } from 'node:assert';
import { keyAnswer, keyPrompt, REMOVE_KEY } from '../../../src/vscode/commands/key-answer';

describe("the endpoint wizard's API key step", () => {
  it('with a key stored: empty keeps it, a new key replaces it, the dash removes it, Escape cancels', () => {
    assert.equal(keyAnswer('', true), null);
    assert.equal(keyAnswer('sk-new', true), 'sk-new');
    assert.equal(keyAnswer(REMOVE_KEY, true), '');
    assert.equal(keyAnswer(undefined, true), undefined);
    assert.match(keyPrompt(true), /leave empty to keep it/);
  });

  it('without one: what is typed is stored, empty stores none', () => {
    assert.equal(keyAnswer('', false), '');
    assert.equal(keyAnswer('sk-x', false), 'sk-x');
    assert.equal(keyAnswer(REMOVE_KEY, false), REMOVE_KEY);
    assert.match(keyPrompt(false), /Leave empty for local endpoints/);
  });
});

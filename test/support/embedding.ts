import * as assert from 'node:assert/strict';
import { AgentMemoryError } from '../../src/core/errors';
import type { FakeOpenAI } from './fake-openai-server';

/** The requests the fake received on /v1/embeddings, in arrival order. */
export function embeddingRequests(fake: FakeOpenAI) {
  return fake.requests.filter((r) => r.path === '/v1/embeddings');
}

/** The AgentMemoryError `promise` rejects with (fails the test if it resolves or rejects with anything else). */
export async function rejection(promise: Promise<unknown>): Promise<AgentMemoryError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AgentMemoryError, `an AgentMemoryError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a rejection');
}

/** Model clients over OpenAI-compatible endpoints, plus reply parsing. */
export * from './config';
export * from './types';
export { ModelClient, estimateTokens } from './model-client';
export { createOpenAIClient, withRetries, backoffDelay, parseRetryAfter } from './transport';
export type { AttemptContext, CallTarget, RetryOutcome } from './transport';
export { extractCode, findCodeBlocks, checkSyntax, stripThinking } from './extract-code';
export type { CodeBlock, CodeLanguage, ExtractCodeOptions } from './extract-code';
export { extractJson, parseJsonReply } from './extract-json';

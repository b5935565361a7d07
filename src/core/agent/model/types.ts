/** One chat message as sent to an OpenAI-compatible endpoint. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatOptions {
  /** Cancels the call (also during backoff waits) → AgentMemoryError('CANCELLED'). */
  signal?: AbortSignal;
  /** Upper bound on generated tokens (`max_tokens`). */
  maxTokens?: number;
  /** Overrides the configured temperature for this call. */
  temperature?: number;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  /** True when the endpoint reported no usage and the counts are chars/4 estimates. */
  estimated?: boolean;
}

export interface ChatResult {
  /** The assistant message content (never empty). */
  text: string;
  usage: TokenUsage;
  /** Wall time of the whole call, retries and backoff included. */
  latencyMs: number;
  /** Requests sent (1 + retries used). */
  attempts: number;
  /** Model name the endpoint reported. */
  model: string;
  /** `stop`, `length`, ... as reported (null when absent). */
  finishReason: string | null;
}

/**
 * What the agent, the judge and the role memories need from a chat model.
 * `ModelClient` implements it over HTTP; tests or offline modes may supply others.
 */
export interface ChatModel {
  readonly model: string;
  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult>;
}

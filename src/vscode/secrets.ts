/** The chat and embedding endpoints' API keys and the team memory's password, kept in VS Code SecretStorage (never in settings). */
import type * as vscode from 'vscode';

/** SecretStorage key of the chat model endpoint's API key. */
export const MODEL_API_KEY = 'agentMemory.model.apiKey';
/** SecretStorage key of the embedding endpoint's API key. */
export const EMBEDDING_API_KEY = 'agentMemory.embedding.apiKey';
/** SecretStorage key of the team memory's PostgreSQL password (agentMemory.team.url names the user, never the password). */
export const TEAM_PASSWORD = 'agentMemory.team.password';

export class ApiKeyStore {
  constructor(private readonly secrets: vscode.SecretStorage, private readonly name: string = MODEL_API_KEY) {}

  get(): Promise<string | undefined> {
    return Promise.resolve(this.secrets.get(this.name));
  }

  /** Stores the key; an empty string deletes it. */
  async set(key: string): Promise<void> {
    if (key) await this.secrets.store(this.name, key);
    else await this.secrets.delete(this.name);
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      if (e.key === this.name) listener();
    });
  }
}

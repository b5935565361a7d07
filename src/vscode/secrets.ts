/** The model endpoint's API key, kept in VS Code SecretStorage (never in settings). */
import type * as vscode from 'vscode';

const API_KEY = 'agentMemory.model.apiKey';

export class ApiKeyStore {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  get(): Promise<string | undefined> {
    return Promise.resolve(this.secrets.get(API_KEY));
  }

  /** Stores the key; an empty string deletes it. */
  async set(key: string): Promise<void> {
    if (key) await this.secrets.store(API_KEY, key);
    else await this.secrets.delete(API_KEY);
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      if (e.key === API_KEY) listener();
    });
  }
}

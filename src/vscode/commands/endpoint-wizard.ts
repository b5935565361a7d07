/** The three questions of an OpenAI-compatible endpoint (base URL, model, API key), shared by the chat and embedding configure commands. */
import * as vscode from 'vscode';
import { z } from 'zod';
import type { ApiKeyStore } from '../secrets';
import { keyAnswer, keyPrompt } from './key-answer';

export interface EndpointAnswers {
  baseUrl: string;
  model: string;
  /** The key to store ('' removes it); null keeps the stored one. */
  apiKey: string | null;
}


export interface EndpointQuestions {
  /** e.g. 'Model endpoint'. */
  title: string;
  /** What an empty base URL means, e.g. 'use the offline reuse model'. */
  emptyMeans: string;
  current: { baseUrl: string; model: string };
  urlPlaceholder: string;
  modelPlaceholder: string;
  /** Answers already given (command arguments); the others are asked. */
  given: Partial<{ baseUrl: string; model: string; apiKey: string }>;
  /** Where the key is kept: when one is stored, an empty answer keeps it (re-running the wizard to change the URL must not erase it). */
  keys: ApiKeyStore;
}

/** Asks what `given` lacks; undefined when the user cancels. Without a base URL, model and key are empty. */
export async function askEndpoint(q: EndpointQuestions): Promise<EndpointAnswers | undefined> {
  const baseUrl =
    q.given.baseUrl ??
    (await vscode.window.showInputBox({
      title: `${q.title} (1/3): base URL`,
      prompt: `An OpenAI-compatible endpoint; leave empty to ${q.emptyMeans}`,
      value: q.current.baseUrl,
      placeHolder: q.urlPlaceholder,
      ignoreFocusOut: true,
      validateInput: (v) => (v === '' || z.url({ protocol: /^https?$/ }).safeParse(v).success ? undefined : 'An http(s) URL, e.g. http://localhost:11434/v1'),
    }));
  if (baseUrl === undefined) return undefined;
  const model = q.given.model ?? (baseUrl ? await vscode.window.showInputBox({ title: `${q.title} (2/3): model name`, value: q.current.model, placeHolder: q.modelPlaceholder, ignoreFocusOut: true }) : '');
  if (model === undefined) return undefined;
  if (!baseUrl) return { baseUrl, model, apiKey: q.given.apiKey ?? '' };
  if (q.given.apiKey !== undefined) return { baseUrl, model, apiKey: q.given.apiKey };
  const keyStored = Boolean(await q.keys.get());
  const typed = await vscode.window.showInputBox({ title: `${q.title} (3/3): API key`, prompt: keyPrompt(keyStored), placeHolder: keyStored ? '(a key is stored: empty keeps it)' : undefined, password: true, ignoreFocusOut: true });
  const apiKey = keyAnswer(typed, keyStored);
  return apiKey === undefined ? undefined : { baseUrl, model, apiKey };
}

/** Stores what the key step answered (null keeps the stored key); whether a key is stored now, and the word for the log. */
export async function storeKeyAnswer(keys: ApiKeyStore, apiKey: string | null): Promise<{ stored: boolean; said: 'kept' | 'stored' | 'not set' }> {
  if (apiKey === null) return { stored: Boolean(await keys.get()), said: 'kept' };
  await keys.set(apiKey);
  return { stored: Boolean(apiKey), said: apiKey ? 'stored' : 'not set' };
}

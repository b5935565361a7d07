/**
 * What the endpoint wizard's API key step means (no vscode import: unit-tested in plain Node).
 * With a key stored, an empty answer keeps it: re-running the wizard to change the URL or the
 * model must not erase the key (the next request would go out without it and fail with 401).
 */

/** Typed at the key step when a key is stored: remove it. */
export const REMOVE_KEY = '-';

/** The key to store ('' removes it), null to keep the stored one, undefined when the step was cancelled. */
export function keyAnswer(typed: string | undefined, keyStored: boolean): string | null | undefined {
  if (typed === undefined) return undefined;
  if (!keyStored) return typed;
  if (typed === '') return null;
  return typed === REMOVE_KEY ? '' : typed;
}

/** The key step's prompt. */
export function keyPrompt(keyStored: boolean): string {
  return keyStored
    ? `A key is stored (SecretStorage): leave empty to keep it, type a new key to replace it, or type ${REMOVE_KEY} to remove it.`
    : 'Stored in VS Code SecretStorage. Leave empty for local endpoints that need none.';
}

/**
 * The editor's team-memory settings, checked: `agentMemory.team.url` (a postgres:// URL
 * without a password: the password lives in SecretStorage, never in a settings file) and
 * `agentMemory.team.space` (default: the workspace folder's name). Editor-free, so the
 * rules are unit-tested in plain Node; src/vscode/team feeds it the settings.
 *
 * @example
 * resolveTeamConfig({ url: 'postgres://app@db/mem', space: '' }, 'my-repo');
 * // { kind: 'on', url: 'postgres://app@db/mem', space: 'my-repo', host: 'db' }
 */
import * as os from 'node:os';
import { describeConnection, isPostgresUrl } from '../memory/postgres/connection';
import { settingId, type Settings } from '../settings';

export const TEAM_URL_SETTING = settingId('team.url');
export const TEAM_SPACE_SETTING = settingId('team.space');
/** The space when neither the setting nor a workspace folder names one. */
export const DEFAULT_TEAM_SPACE = 'default';
/** Title of the command that stores the password (named in messages). */
export const SET_PASSWORD_COMMAND_TITLE = 'Agent Memory: Set Team Memory Password';

export type TeamConfig =
  | { kind: 'off' }
  /** The settings are wrong; `message` says what to do (and never contains a password). */
  | { kind: 'invalid'; message: string }
  | { kind: 'on'; url: string; space: string; host: string };

const SPACE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * A space name from a folder name: characters outside letters, digits, `.`, `_`, `-` become
 * `-`, leading punctuation is dropped, at most 100 characters; `default` when nothing is left.
 */
export function spaceFromFolder(folderName: string | undefined): string {
  const cleaned = (folderName ?? '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 100);
  return cleaned || DEFAULT_TEAM_SPACE;
}

/** Host (and port) of a team URL, for messages ("unreachable (db.example.com:5432)"). */
export function teamHost(url: string): string {
  try {
    const u = new URL(url);
    return u.port ? `${u.hostname}:${u.port}` : u.hostname;
  } catch {
    return describeConnection(url);
  }
}

/** Checks the team settings; `folderName` is the first workspace folder's name (the default space). */
export function resolveTeamConfig(team: Settings['team'], folderName: string | undefined): TeamConfig {
  const url = team.url.trim();
  if (!url) return { kind: 'off' };
  if (!isPostgresUrl(url)) {
    return { kind: 'invalid', message: `${TEAM_URL_SETTING} must be a postgres:// URL (postgres://user@host:5432/database?sslmode=verify-full); the team memory is off until it is.` };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { kind: 'invalid', message: `${TEAM_URL_SETTING} is not a valid URL (${describeConnection(url)}); expected postgres://user@host:5432/database?sslmode=verify-full.` };
  }
  if (parsed.password || parsed.searchParams.has('password')) {
    return {
      kind: 'invalid',
      message: `${TEAM_URL_SETTING} contains a password, and settings files are plain text: the team memory was not connected. Remove the password from the setting (${describeConnection(url)}) and store it with '${SET_PASSWORD_COMMAND_TITLE}'.`,
    };
  }
  if (!parsed.username) {
    return { kind: 'invalid', message: `${TEAM_URL_SETTING} names no user: put the role before the host (postgres://agent_memory_app@${teamHost(url)}/…).` };
  }
  const space = team.space.trim() || spaceFromFolder(folderName);
  if (!SPACE_PATTERN.test(space)) {
    return { kind: 'invalid', message: `${TEAM_SPACE_SETTING} '${space}' is not a space name: use letters, digits, dots, dashes and underscores (e.g. the repository name), at most 100 characters.` };
  }
  return { kind: 'on', url, space, host: teamHost(url) };
}

/** Who acts in the team's audit from this editor: the OS account and `vscode@<hostname>`. */
export function editorActor(): { user: string; client: string } {
  let user = '';
  try {
    user = os.userInfo().username;
  } catch {
    user = '';
  }
  return { user: user || process.env.USER || 'unknown', client: `vscode@${os.hostname() || 'unknown'}` };
}

/**
 * The user's level in a team space as the editor shows and uses it (the server decides: migration 5,
 * `agent_memory_level`): the status item's word, the when-clause context key that offers approve,
 * reject and restore to reviewers only, and what a refusal says is needed and who grants it.
 */
import type { SpaceLevel } from '../memory/postgres/team-store';

/** The context key the editor sets from the level (package.json `when` clauses read it). */
export const TEAM_LEVEL_CONTEXT_KEY = 'agentMemory.teamLevel';

/** The key's values: the server's level, `none` (no membership in the space), `unknown` (not read: not connected, or a schema before roles). */
export type TeamLevelContext = SpaceLevel | 'none' | 'unknown';

export function teamLevelContext(level: SpaceLevel | null | undefined): TeamLevelContext {
  if (level === undefined) return 'unknown';
  return level ?? 'none';
}

/**
 * Whether the editor offers the reviewer's actions. An unknown level offers them (the server still
 * refuses, with the message below); `agent` and `none` do not. package.json's `when` clauses say
 * the same: `agentMemory.teamLevel != agent && agentMemory.teamLevel != none`.
 */
export function offersReview(level: TeamLevelContext): boolean {
  return level !== 'agent' && level !== 'none';
}

/** The status item's word for the level (`Team memory: <space> · connected · reviewer`). */
export function teamLevelWord(level: TeamLevelContext): string | undefined {
  switch (level) {
    case 'owner':
      return 'owner';
    case 'reviewer':
      return 'reviewer';
    case 'agent':
      return 'agent';
    case 'none':
      return 'no access';
    case 'unknown':
      return undefined;
  }
}

/** The tooltip's sentence: what the level allows and how to get more. */
export function teamLevelSentence(level: TeamLevelContext, space: string): string {
  switch (level) {
    case 'owner':
      return `You own the team memory: every action in every space, and you grant levels (agent-memory team-grant).`;
    case 'reviewer':
      return `You are a reviewer of space '${space}': you may approve, reject and restore its records.`;
    case 'agent':
      return `You are an agent of space '${space}': you may search and record (records stay pending); approving, rejecting and restoring need the reviewer level. ${grantAdvice(space, 'reviewer')}`;
    case 'none':
      return `Your role has no level in space '${space}'. ${grantAdvice(space, 'agent')}`;
    case 'unknown':
      return '';
  }
}

/** Who grants a level and how (the schema owner runs it with the owner's connection). */
export function grantAdvice(space: string, level: 'agent' | 'reviewer', role = 'YOUR_ROLE'): string {
  return `The owner of the team memory grants it: agent-memory team-grant --url OWNER_URL --role ${role} --space ${space} --as ${level}.`;
}

/**
 * What a refusal by the server (42501) adds to its message: the level needed and who grants it. The
 * server's own words name the role and the level when the owner's functions refused
 * ("role bob is not a reviewer of space s"); a row-level security refusal names neither.
 */
export function forbiddenAdvice(serverMessage: string, space: string): string {
  const named = /role (\S+) is not (a reviewer|a member) of space (\S+)/.exec(serverMessage);
  if (named) {
    const level = named[2] === 'a reviewer' ? 'reviewer' : 'agent';
    const what = level === 'reviewer' ? 'approving, rejecting, restoring, deleting and setting the policy need the reviewer level' : 'reading and recording need at least the agent level';
    return `In space '${named[3]}' ${what}. ${grantAdvice(named[3], level, named[1])}`;
  }
  return `Your role lacks the level this needs in space '${space}' (agent: search and record; reviewer: also approve, reject, restore, delete, set the policy). ${grantAdvice(space, 'reviewer')}`;
}

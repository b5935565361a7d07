/**
 * The status bar's words for the team memory: `Team memory: <space> · connected`,
 * `· unreachable (<host>)`, `· password needed`. One place, so the editor and the tests
 * agree on them.
 */
import type { TeamState } from './team-session';
import { teamLevelSentence, teamLevelWord, type TeamLevelContext } from './team-level';

export interface TeamStatusText {
  /** Short, for the status bar (no codicon: the adapter adds it). */
  text: string;
  tooltip: string;
}

export function teamStatusText(space: string, host: string, state: TeamState, counts?: { pending: number; active: number }, level: TeamLevelContext = 'unknown'): TeamStatusText {
  const head = `Team memory: ${space}`;
  switch (state.kind) {
    case 'connected': {
      const tally = counts ? ` (${counts.active} active, ${counts.pending} pending)` : '';
      const word = teamLevelWord(level);
      const sentence = teamLevelSentence(level, space);
      return { text: `${head} · connected${word ? ` · ${word}` : ''}`, tooltip: `Team memory ${state.message}${tally}.${sentence ? ` ${sentence}` : ''} Click to show the Team Memory view.` };
    }
    case 'connecting':
      return { text: `${head} · connecting`, tooltip: `Team memory: ${state.message}` };
    case 'unreachable':
      return { text: `${head} · unreachable (${host})`, tooltip: `Team memory: ${state.message} Searches return no shared records and writes fail (reported) until it is back.` };
    case 'password-needed':
      return { text: `${head} · password needed`, tooltip: `Team memory: ${state.message}` };
    case 'failed':
      return { text: `${head} · error`, tooltip: `Team memory: ${state.message}` };
    case 'closed':
      return { text: `${head} · closed`, tooltip: 'Team memory: closed' };
  }
}

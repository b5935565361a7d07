/**
 * One reviewer process of `bench:team --roles separate` (a person at the review queue, logged in
 * as a reviewer role of the space): it approves the pending records of its agents (agent index
 * % reviewers = its index) as they arrive (woken by the change feed, else every 200 ms), and runs
 * the team sweep (a reviewer's). When its stdin closes (the agents are done) it approves what is
 * still pending and exits. Events on stdout, one JSON line each, as bench-team-client.ts.
 * Input: argv[2] is a JSON BenchReviewerInput; the password comes in AGENT_MEMORY_PG_PASSWORD.
 */
import { TeamChangeFeed } from '../../core/memory/postgres/change-feed';
import { TeamMemoryStore } from '../../core/memory/postgres/team-store';
import { sweepTeam } from '../../core/memory/postgres/team-sweep';

export interface BenchReviewerInput {
  url: string;
  space: string;
  index: number;
  reviewers: number;
  sweepPeriodMs: number;
}

const emit = (event: Record<string, unknown>): void => {
  process.stdout.write(JSON.stringify(event) + '\n');
};

/** `bench-<agent>-<round>` ids of this reviewer's agents. */
const mine = (id: string, input: BenchReviewerInput): boolean => {
  const m = /^bench-(\d+)-\d+$/.exec(id);
  return m !== null && Number(m[1]) % input.reviewers === input.index;
};

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2]) as BenchReviewerInput;
  const who = { url: input.url, space: input.space, user: `bench-reviewer-${input.index}`, client: `vscode@bench-reviewer-${input.index}`, maxConnections: 2 };
  const team = await TeamMemoryStore.connect(who);
  const feed = await TeamChangeFeed.start(who);
  let wake: (() => void) | undefined;
  feed.onDidChange((c) => {
    if (c.kind === 'added') wake?.();
  });
  let stopping = false;
  process.stdin.on('end', () => {
    stopping = true;
    wake?.();
  });
  process.stdin.resume();
  emit({ t: 'ready' });
  /** Approves what is pending; returns how many it approved. */
  const review = async (): Promise<number> => {
    const pending = (await team.listByStatus('pending', 10_000)).map((r) => r.id).filter((id) => mine(id, input));
    if (pending.length === 0) return 0;
    const sent = Date.now();
    try {
      await team.transition(pending, 'approve', { trigger: 'user', reason: 'bench review' });
      for (const id of pending) emit({ t: 'approved', id, at: sent });
      return pending.length;
    } catch {
      // One refused id rolls back the batch: approve one at a time, each failure reported.
      let n = 0;
      for (const id of pending) {
        const at = Date.now();
        try {
          await team.transition([id], 'approve', { trigger: 'user', reason: 'bench review' });
          emit({ t: 'approved', id, at });
          n++;
        } catch (error) {
          emit({ t: 'failed', id: `review-${id}`, message: (error as Error).message });
        }
      }
      return n;
    }
  };
  for (;;) {
    const last = stopping;
    let approved = 0;
    try {
      approved = await review();
      const swept = await sweepTeam(team, { periodMs: input.sweepPeriodMs, minActiveRecords: 10, minRetrievals: 1_000_000, maxMeanUtility: 0 });
      if (swept.ran) emit({ t: 'sweep', at: Date.now() });
    } catch (error) {
      // A server restart (--faults): the next pass tries again.
      emit({ t: 'failed', id: 'review', message: (error as Error).message });
    }
    if (last && approved === 0) break;
    if (approved === 0 && !stopping) await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 200);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = undefined;
  }
  emit({ t: 'rss', mb: process.memoryUsage().rss / 2 ** 20 });
  await feed.close();
  await team.close();
  emit({ t: 'done' });
}

main().catch((error: unknown) => {
  emit({ t: 'crash', message: (error as Error).message });
  process.exitCode = 1;
});

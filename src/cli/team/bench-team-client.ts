/**
 * One client process of `bench:team` (an editor or MCP server stand-in): for each round it
 * writes an agent record (pending under strict addition), approves its previous one,
 * searches, logs the retrieval and feeds Φ back, and tries the team sweep. As an agent role
 * (`--roles separate`) every other record is sent as an import asking for `active` (what a client
 * past the client-side gate would send: the server stores it pending), and its approval of its
 * previous record must be refused by the server (`agent-approve`: refused or succeeded). It reports on
 * stdout, one JSON line per event, as soon as each is acknowledged by the server (so the
 * parent knows what was acknowledged even when this process is SIGKILLed).
 * Input: argv[2] is a JSON BenchClientInput; the password comes in AGENT_MEMORY_PG_PASSWORD.
 */
import * as path from 'node:path';
import { isAgentMemoryError } from '../../core/errors';
import { TeamChangeFeed } from '../../core/memory/postgres/change-feed';
import { searchTeam } from '../../core/memory/postgres/team-search';
import { TeamShapes } from '../../core/memory/postgres/team-shapes';
import { readDomainValues } from '../../core/data/domain-values-reader';
import { DEMO_DATABASE_FILE } from '../../core/data/ehr-tasks';
import { TeamMemoryStore } from '../../core/memory/postgres/team-store';
import { sweepTeam } from '../../core/memory/postgres/team-sweep';
import { beginTeamTask, logTeamRetrievals, setTeamUtility } from '../../core/memory/postgres/team-utility';
import { benchVector } from './bench-team-data';

export interface BenchClientInput {
  url: string;
  space: string;
  index: number;
  rounds: number;
  dimension: number;
  sweepPeriodMs: number;
  /** Re-rank the searches (team-shapes.ts): the space is read before the first round. */
  rerank?: boolean;
  /** Logged in as an agent role of the space (bench-team-roles.ts): its approvals must be refused. */
  agent?: boolean;
}

const emit = (event: Record<string, unknown>): void => {
  process.stdout.write(JSON.stringify(event) + '\n');
};

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2]) as BenchClientInput;
  const who = { url: input.url, space: input.space, user: `bench-user-${input.index}`, client: `${input.index % 2 ? 'mcp' : 'vscode'}@bench-${input.index}`, maxConnections: 2 };
  const team = await TeamMemoryStore.connect(who);
  const feed = await TeamChangeFeed.start(who);
  feed.onDidChange((c) => {
    if (c.kind === 'status') emit({ t: 'seen', id: c.id, at: Date.now() });
  });
  let shapes: TeamShapes | undefined;
  if (input.rerank) {
    // As the editor's searches re-rank: with the agent database's values (the re-ranking applies only with them).
    const domainValues = readDomainValues(path.join(process.cwd(), 'data', 'ehr', DEMO_DATABASE_FILE));
    const t = performance.now();
    shapes = new TeamShapes(team, { domainValues });
    await shapes.load();
    emit({ t: 'shapes', ms: performance.now() - t });
  }
  emit({ t: 'ready' });
  let previous: string | undefined;
  for (let r = 0; r < input.rounds; r++) {
    const id = `bench-${input.index}-${r}`;
    let added = false;
    try {
      // As an agent role, odd rounds import asking for 'active' (no client-side strict for an import): the server's gate must hold.
      const asImport = input.agent === true && r % 2 === 1;
      await team.add([{ id, question: `bench question ${input.index} round ${r} about admissions`, execution: { code: `answer = ${r}`, language: 'python', outcome: 'success' }, provenance: 'agent', status: 'active' }], {
        trigger: asImport ? 'import' : 'agent', embeddings: [benchVector(input.index * 100_000 + r, input.dimension)], embedderId: 'bench', returnRecords: false, merge: false,
      });
      emit({ t: 'ack', id });
      added = true;
    } catch (error) {
      emit({ t: 'failed', id, message: (error as Error).message });
    }
    try {
      if (previous && input.agent) {
        // An agent's approval of its own record: the server must refuse it (FORBIDDEN); a reviewer approves instead.
        try {
          await team.transition([previous], 'approve', { trigger: 'user' });
          emit({ t: 'agent-approve', ok: true, id: previous });
        } catch (error) {
          const refused = isAgentMemoryError(error, 'FORBIDDEN');
          emit({ t: 'agent-approve', ok: false, refused, id: previous, ...(refused ? {} : { message: (error as Error).message }) });
        }
      } else if (previous) {
        // Visibility is measured from before the approval is sent (an upper bound: it includes the approval's own round trips).
        const sent = Date.now();
        await team.transition([previous], 'approve', { trigger: 'user' });
        emit({ t: 'approved', id: previous, at: sent });
      }
      const t0 = performance.now();
      const hits = await searchTeam(team, `question round ${r} admissions`, benchVector(r * 7 + input.index, input.dimension), 4, { rerank: shapes });
      emit({ t: 'search', ms: performance.now() - t0 });
      const task = await beginTeamTask(team, `bench task ${input.index}/${r}`);
      const logged = await logTeamRetrievals(team, task, hits.map((h, rank) => ({ recordId: h.record.id, rank, inputSimilarity: h.denseScore ?? null })));
      emit({ t: 'inc', kind: 'retrieval', n: logged });
      const credited = await setTeamUtility(team, task, r % 3 === 0 ? 0 : 1, 'strict');
      emit({ t: 'inc', kind: 'phi', n: credited.length });
      if (!input.agent) {
        // The sweep deletes: a reviewer's (with separate roles the reviewer processes run it).
        const swept = await sweepTeam(team, { periodMs: input.sweepPeriodMs, minActiveRecords: 10, minRetrievals: 1_000_000, maxMeanUtility: 0 });
        if (swept.ran) emit({ t: 'sweep', at: Date.now() });
      }
    } catch (error) {
      emit({ t: 'failed', id: `round-${r}`, message: (error as Error).message });
    }
    // Only a record whose add was acknowledged is approved next round (approving one that failed to add fails by design).
    previous = added ? id : undefined;
    if (r % 25 === 0) emit({ t: 'rss', mb: process.memoryUsage().rss / 2 ** 20 });
  }
  emit({ t: 'rss', mb: process.memoryUsage().rss / 2 ** 20 });
  await new Promise((r) => setTimeout(r, 1500)); // let the last notifications arrive
  await feed.close();
  await team.close();
  emit({ t: 'done' });
}

main().catch((error: unknown) => {
  emit({ t: 'crash', message: (error as Error).message });
  process.exitCode = 1;
});

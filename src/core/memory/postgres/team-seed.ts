/**
 * The demo's initial memory (EHRSQL gold programs) in a space of the team memory, as
 * `seedDemoMemory` does for a SQLite file: records seeded before (same demo source id) are
 * skipped, the rest are added active (trigger `user`, provenance `seed`) in one transaction.
 * Each gets the vector of the space's shared embedder (team-embedder.ts), as memory_record's
 * records do, so they are found by both sides of team-search.ts.
 *
 * @example
 * const added = await seedTeamDemo(team, 'data/ehr/ehrsql-mimic3-tasks.jsonl', 100, 'python');
 */
import { demoSeedRecords, readDemoTasks } from '../../data/ehr-tasks';
import type { TeamMemoryStore } from './team-store';

export async function seedTeamDemo(team: TeamMemoryStore, tasksFile: string, count: number, language: 'python' | 'javascript'): Promise<number> {
  const records = demoSeedRecords(readDemoTasks(tasksFile), count, language);
  const seeded = await team.withClient(
    (c) => c.query<{ s: string | null }>("SELECT (metadata::jsonb)->>'sourceId' AS s FROM records WHERE space = $1 AND provenance = 'seed'", [team.space]),
    'read the seeded records',
    { retryBroken: true },
  );
  const existing = new Set(seeded.rows.flatMap((r) => (r.s === null ? [] : [r.s])));
  const fresh = records.filter((r) => !existing.has(String(r.metadata?.sourceId)));
  if (fresh.length === 0) return 0;
  const { embedder } = await team.sharedEmbedder();
  await team.add(fresh, { trigger: 'user', reason: `seeded ${fresh.length} demo records (EHRSQL gold programs)`, merge: false, returnRecords: false, embedder });
  return fresh.length;
}

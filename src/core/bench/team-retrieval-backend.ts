/**
 * The team memory as a retrieval-evaluation backend (`agent-memory eval-retrieval --backend team`): the
 * memory goes into one space of a team memory on PostgreSQL + pgvector as active records, with the
 * space's shared embedder (the unfitted hashing embedder, as every client of a space computes it), and is
 * searched with `searchTeam` — collapsed by program, and re-ranked when asked (team-shapes.ts), the
 * path Run Task, `memory_search` and `agent-memory task` take on a team space. Scored by
 * `evaluateRetrieval` like the personal memory's backends, so the figures compare.
 *
 * @example
 * ```ts
 * const backend = new TeamBackend(store, { rerank: true, domainValues });
 * const result = await evaluateRetrieval({ memory, queries, backend }); // { hit_at_1, precision_at_k, … }
 * ```
 */
import { AgentMemoryError } from '../errors';
import type { DomainValues } from '../memory/search/domain-values';
import { ALL_RERANK_PARTS, type RerankParts } from '../memory/search/rerank';
import { searchTeam } from '../memory/postgres/team-search';
import { TeamShapes } from '../memory/postgres/team-shapes';
import type { TeamMemoryStore } from '../memory/postgres/team-store';
import type { HashingEmbedder } from '../similarity/hashing-embedder';
import type { RetrievalBackend, RetrievalMode } from './eval-retrieval';

/** The modes a team search has (the server's: hybrid, or keywords without a vector). */
export const TEAM_RETRIEVAL_MODES: readonly RetrievalMode[] = ['hybrid', 'keyword'];

/** Refuses a mode the team search does not have (INVALID_INPUT, before anything is started). */
export function assertTeamMode(mode: RetrievalMode): void {
  if (!TEAM_RETRIEVAL_MODES.includes(mode)) throw new AgentMemoryError('INVALID_INPUT', `--backend team searches in hybrid or keyword mode (got --mode ${mode}): the server's search has no other.`);
}

export interface TeamBackendOptions {
  /** Collapse identical programs (default true, as searchTeam). */
  collapse?: boolean;
  /** Re-rank the collapsed top (all parts, none, or these; default none). */
  rerank?: boolean | RerankParts;
  /** The values of the database the questions are about (the re-ranking's value columns). */
  domainValues?: DomainValues;
}

export class TeamBackend implements RetrievalBackend {
  private embedder: HashingEmbedder | undefined;
  /** Record id → the evaluation's key. */
  private readonly keys = new Map<string, string>();
  private shapes: TeamShapes | undefined;

  /** `team`: a connection to an empty space (records are added to it). */
  constructor(private readonly team: TeamMemoryStore, private readonly options: TeamBackendOptions = {}) {}

  get embedderId(): string {
    return this.embedder?.id ?? 'team-shared';
  }

  async add(records: readonly { key: string; question: string; code: string }[]): Promise<void> {
    if (this.embedder) throw new AgentMemoryError('INVALID_STATE', 'TeamBackend.add() loads the whole memory: call it once.');
    if ((await this.team.counts()).active > 0) throw new AgentMemoryError('INVALID_STATE', `Space '${this.team.space}' already holds records; evaluate on an empty space.`);
    const { embedder } = await this.team.sharedEmbedder();
    this.embedder = embedder;
    const added = await this.team.add(
      records.map((r) => ({ question: r.question, execution: { code: r.code, language: 'python' as const, outcome: 'success' as const }, provenance: 'import' as const })),
      { trigger: 'import', reason: 'eval-retrieval memory', merge: false, embedder },
    );
    added.forEach((r, i) => this.keys.set(r.id, records[i].key));
    const parts = this.options.rerank === true ? ALL_RERANK_PARTS : this.options.rerank || undefined;
    if (parts) {
      this.shapes = new TeamShapes(this.team, { domainValues: this.options.domainValues ?? null, parts });
      await this.shapes.load();
    }
  }

  async search(query: string, k: number, mode: RetrievalMode): Promise<{ key: string; score: number }[]> {
    if (!this.embedder) throw new AgentMemoryError('INVALID_STATE', 'TeamBackend.search() before add(): load the memory first.');
    assertTeamMode(mode);
    const vector = mode === 'hybrid' ? this.embedder.embedSync(query) : null;
    const hits = await searchTeam(this.team, query, vector, k, { collapse: this.options.collapse, rerank: this.shapes });
    return hits.map((h) => ({ key: this.keys.get(h.record.id) ?? h.record.id, score: h.score }));
  }
}

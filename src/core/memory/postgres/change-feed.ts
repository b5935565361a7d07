/**
 * The team memory's change feed: one dedicated connection LISTENs on
 * `agent_memory_changes` (NOTIFY fires at commit, from the records trigger). A client that
 * lost its connection reconnects with backoff (0.25 s doubling to 8 s) and catches up from
 * `change_log` after the last sequence number it saw, so no change is missed.
 *
 * Any role that may connect can NOTIFY the channel, so a notification is only a prompt to re-read
 * `change_log` (under row-level security: the rows of this client's spaces): its payload is parsed
 * defensively (a non-JSON payload is ignored) and its `seq` never trusted (a forged one skips nothing).
 */
import { Client } from 'pg';
import { Emitter } from '../../events';
import { Logger, nullLogger } from '../../logger';
import { redactText } from '../../security/redact';
import { poolConfig, TeamConnectionInput } from './connection';

export interface TeamChange {
  seq: number;
  id: string;
  kind: 'added' | 'status' | 'utility' | 'purged' | 'updated';
}

export type FeedState = 'connected' | 'reconnecting' | 'closed';

export class TeamChangeFeed {
  private readonly changes = new Emitter<TeamChange>();
  readonly onDidChange = this.changes.event;
  private readonly states = new Emitter<FeedState>();
  readonly onDidChangeState = this.states.event;
  private client: Client | undefined;
  private lastSeq = 0;
  private closed = false;
  private wait = 250;
  private timer: NodeJS.Timeout | undefined;
  private reading = false;
  private again = false;

  private constructor(private readonly input: TeamConnectionInput, private readonly space: string, private readonly log: Logger) {}

  /** Starts listening; changes committed after the returned promise resolves are delivered. */
  static async start(input: TeamConnectionInput, options: { logger?: Logger } = {}): Promise<TeamChangeFeed> {
    const { connection } = poolConfig(input);
    const feed = new TeamChangeFeed(input, connection.space, options.logger ?? nullLogger);
    await feed.connect(true);
    return feed;
  }

  get state(): FeedState {
    return this.closed ? 'closed' : this.client ? 'connected' : 'reconnecting';
  }

  private async connect(first: boolean): Promise<void> {
    const { config } = poolConfig(this.input);
    const client = new Client({ ...config, statement_timeout: undefined });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    client.on('notification', (n) => {
      if (n.channel !== 'agent_memory_changes' || !this.concerns(n.payload)) return;
      this.catchUp(client);
    });
    try {
      await client.connect();
      await client.query('LISTEN agent_memory_changes');
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (first) {
      this.lastSeq = Number((await client.query<{ s: string | null }>('SELECT max(seq)::text AS s FROM change_log WHERE space = $1', [this.space])).rows[0].s ?? 0);
    } else {
      // Catch up on what was committed while disconnected.
      await this.readChanges(client);
    }
    this.client = client;
    this.wait = 250;
    this.states.fire('connected');
  }

  /** False only for a well-formed payload naming another space (a prompt for that space's clients). */
  private concerns(payload: string | undefined): boolean {
    try {
      const p = JSON.parse(payload ?? '') as unknown;
      return !(typeof p === 'object' && p !== null && typeof (p as { space?: unknown }).space === 'string' && (p as { space: string }).space !== this.space);
    } catch {
      return true;
    }
  }

  /** Re-reads change_log after the last seq seen; prompts arriving during a read run one more read after it. */
  private catchUp(client: Client): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    this.readChanges(client)
      .catch((error: unknown) => this.log.warn(`[team] change feed could not read the change log (${redactText((error as Error).message)})`))
      .finally(() => {
        this.reading = false;
        if (this.again && this.client === client && !this.closed) {
          this.again = false;
          this.catchUp(client);
        }
      });
  }

  private async readChanges(client: Client): Promise<void> {
    const rows = await client.query<{ seq: string; record_id: string; kind: TeamChange['kind'] }>(
      'SELECT seq::text, record_id, kind FROM change_log WHERE space = $1 AND seq > $2 ORDER BY seq LIMIT 10000',
      [this.space, this.lastSeq],
    );
    for (const m of rows.rows) {
      const seq = Number(m.seq);
      if (seq <= this.lastSeq || this.closed) continue;
      this.lastSeq = seq;
      this.changes.fire({ seq, id: m.record_id, kind: m.kind });
    }
    if (rows.rows.length === 10000) this.again = true;
  }

  private lost(client: Client, error: Error): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.log.warn(`[team] change feed disconnected (${redactText(error.message)}); reconnecting`);
    this.states.fire('reconnecting');
    client.end().catch(() => undefined);
    this.schedule();
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.connect(false).catch(() => {
        this.wait = Math.min(this.wait * 2, 8000);
        this.schedule();
      });
    }, this.wait);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.client;
    this.client = undefined;
    this.states.fire('closed');
    this.changes.dispose();
    this.states.dispose();
    await c?.end().catch(() => undefined);
  }
}

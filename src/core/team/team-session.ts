/**
 * One editor's connection to the team memory: connects the store (TeamMemoryStore) and the
 * change feed (LISTEN/NOTIFY), keeps a state a status bar can show (connected / unreachable /
 * password needed), and reconnects with backoff (1 s doubling to 8 s) while the server cannot
 * be reached. Records other clients change arrive as `onDidChangeRecords` (from the feed; a
 * feed that reconnected catches up from change_log and fires once more).
 *
 * Editor-free: src/vscode/team wires it to the settings, SecretStorage, the tree and the
 * status bar. The password is held in memory only and never appears in a state message.
 *
 * @example
 * const session = new TeamSession({ connection: { url, space, password, ...editorActor() }, logger });
 * session.onDidChangeState((s) => statusBar.show(s));
 * session.start();
 * const store = await session.store();
 */
import { AgentMemoryError, errorMessage, isAgentMemoryError } from '../errors';
import { Emitter } from '../events';
import { Logger, nullLogger } from '../logger';
import type { TeamChange } from '../memory/postgres/change-feed';
import { TeamChangeFeed } from '../memory/postgres/change-feed';
import { isPasswordProblem, type TeamConnectionInput } from '../memory/postgres/connection';
import { TeamMemoryStore } from '../memory/postgres/team-store';
import { teamLevelContext, type TeamLevelContext } from './team-level';
import { redactText } from '../security/redact';
import { SET_PASSWORD_COMMAND_TITLE, teamHost } from './team-config';

export const TEAM_STATES = ['connecting', 'connected', 'unreachable', 'password-needed', 'failed', 'closed'] as const;
export type TeamStateKind = (typeof TEAM_STATES)[number];

export interface TeamState {
  kind: TeamStateKind;
  /** What happened and what to do (for a tooltip or a log line); no password, ever. */
  message: string;
}

export interface TeamSessionOptions {
  /** url, space, user, client and the password (from SecretStorage). */
  connection: TeamConnectionInput;
  logger?: Logger;
  /** How long one connection attempt retries inside the store (default 2 s) before the session backs off. */
  connectRetryMs?: number;
  /** Reconnect backoff of the session: first wait and the cap (default 1 s doubling to 8 s). */
  backoff?: { initialMs: number; maxMs: number };
  /** Opens the store and the feed (tests may wrap them); default: the real ones. */
  open?: {
    store(input: TeamConnectionInput, logger: Logger): Promise<TeamMemoryStore>;
    feed(input: TeamConnectionInput, logger: Logger): Promise<TeamChangeFeed>;
  };
}

const defaultOpen: NonNullable<TeamSessionOptions['open']> = {
  store: (input, logger) => TeamMemoryStore.connect(input, { logger, env: {} }),
  feed: (input, logger) => TeamChangeFeed.start(input, { logger }),
};

export class TeamSession {
  private readonly states = new Emitter<TeamState>();
  /** Fires on every state change. */
  readonly onDidChangeState = this.states.event;
  private readonly changes = new Emitter<TeamChange | undefined>();
  /** A record of the space changed (`undefined`: anything may have changed, e.g. after a reconnect: re-read). */
  readonly onDidChangeRecords = this.changes.event;
  private current: TeamState = { kind: 'connecting', message: 'connecting…' };
  private connected: { store: TeamMemoryStore; feed: TeamChangeFeed } | undefined;
  private attempt: Promise<TeamMemoryStore> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wait: number;
  private closed = false;
  private levelValue: TeamLevelContext = 'unknown';
  private readonly log: Logger;
  private readonly open: NonNullable<TeamSessionOptions['open']>;
  readonly host: string;

  constructor(private readonly options: TeamSessionOptions) {
    this.log = options.logger ?? nullLogger;
    this.open = options.open ?? defaultOpen;
    this.wait = options.backoff?.initialMs ?? 1000;
    this.host = teamHost(options.connection.url);
  }

  get space(): string {
    return this.options.connection.space ?? 'default';
  }

  get state(): TeamState {
    return this.current;
  }

  /** The user's level in the space, read once on each connect (`unknown` until then, or when the server has no roles). */
  get level(): TeamLevelContext {
    return this.levelValue;
  }

  /** Starts connecting (and keeps trying with backoff while the server is unreachable). */
  start(): void {
    this.store().catch(() => undefined);
  }

  /**
   * The connected store; connects now when not connected (without waiting for the backoff).
   * Rejects with the typed error of the failed attempt (UNREACHABLE, DATABASE), or CONFIG at once
   * while the server refuses the password this session holds.
   */
  store(): Promise<TeamMemoryStore> {
    if (this.closed) return Promise.reject(new AgentMemoryError('CONFIG', 'The team memory session was closed (the settings changed); try again.'));
    if (this.connected) return Promise.resolve(this.connected.store);
    // The server refused this password: asking again with the same one cannot succeed (a new password opens a new session).
    if (this.current.kind === 'password-needed') return Promise.reject(new AgentMemoryError('CONFIG', `The team memory needs a password: ${this.current.message}`));
    this.attempt ??= this.connect().finally(() => {
      this.attempt = undefined;
    });
    return this.attempt;
  }

  /**
   * Runs `fn` on the store; an UNREACHABLE failure marks the session unreachable (the feed
   * or the next attempt brings it back), any other error passes through unchanged.
   */
  async run<T>(fn: (store: TeamMemoryStore) => Promise<T>): Promise<T> {
    const store = await this.store();
    try {
      return await fn(store);
    } catch (error) {
      if (isAgentMemoryError(error, 'UNREACHABLE')) this.setState('unreachable', this.unreachableMessage(error));
      throw error;
    }
  }

  private async connect(): Promise<TeamMemoryStore> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.current.kind !== 'unreachable') this.setState('connecting', `connecting to ${this.host}…`);
    const input: TeamConnectionInput = { ...this.options.connection, retryMs: this.options.connectRetryMs ?? 2000 };
    let store: TeamMemoryStore | undefined;
    try {
      store = await this.open.store(input, this.log);
      const feed = await this.open.feed(input, this.log);
      if (this.closed) {
        await Promise.all([feed.close(), store.close()]);
        throw new AgentMemoryError('CONFIG', 'The team memory session was closed while connecting.');
      }
      feed.onDidChange((change) => this.changes.fire(change));
      feed.onDidChangeState((state) => {
        if (this.closed || this.connected?.feed !== feed) return;
        if (state === 'reconnecting') this.setState('unreachable', `${this.host} is unreachable (the change feed lost its connection); reconnecting with backoff.`);
        if (state === 'connected') {
          this.setState('connected', this.connectedMessage());
          this.changes.fire(undefined);
        }
      });
      this.levelValue = await this.readLevel(store);
      this.connected = { store, feed };
      this.wait = this.options.backoff?.initialMs ?? 1000;
      this.setState('connected', this.connectedMessage());
      this.changes.fire(undefined);
      return store;
    } catch (error) {
      // A feed that could not start fails with a raw driver error: type it like the store's (UNREACHABLE / DATABASE).
      const typed = store && !isAgentMemoryError(error) && !isPasswordProblem(error) ? store.failure(error, 'listen for changes') : error;
      await store?.close().catch(() => undefined);
      this.failed(typed);
      throw typed;
    }
  }

  /** The server's answer; a failure (a schema before roles, a connection lost) leaves it unknown: the server still decides each action. */
  private async readLevel(store: TeamMemoryStore): Promise<TeamLevelContext> {
    try {
      return teamLevelContext(await store.level());
    } catch (error) {
      this.log.warn(`[team] could not read your level in space '${this.space}': ${redactText(errorMessage(error))}`);
      return 'unknown';
    }
  }

  private failed(error: unknown): void {
    if (this.closed) return;
    if (isPasswordProblem(error)) {
      this.setState('password-needed', `${this.host} refused the login: ${this.options.connection.password ? 'the stored password was rejected' : 'no password is stored'}. Run '${SET_PASSWORD_COMMAND_TITLE}'.`);
      return;
    }
    if (isAgentMemoryError(error, 'UNREACHABLE')) {
      this.setState('unreachable', this.unreachableMessage(error));
      this.schedule();
      return;
    }
    this.setState('failed', redactText(errorMessage(error)));
  }

  private schedule(): void {
    if (this.closed || this.timer) return;
    const wait = this.wait;
    this.wait = Math.min(this.wait * 2, this.options.backoff?.maxMs ?? 8000);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.start();
    }, wait);
  }

  private connectedMessage(): string {
    return `connected to ${this.host}, space '${this.space}'`;
  }

  private unreachableMessage(error: unknown): string {
    return `${this.host} is unreachable (${redactText(errorMessage(error))}); reconnecting with backoff.`;
  }

  private setState(kind: TeamStateKind, message: string): void {
    if (this.closed && kind !== 'closed') return;
    const changed = kind !== this.current.kind || message !== this.current.message;
    this.current = { kind, message };
    if (!changed) return;
    if (kind === 'unreachable' || kind === 'password-needed' || kind === 'failed') this.log.warn(`[team] ${message}`);
    else this.log.info(`[team] ${message}`);
    this.states.fire(this.current);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.setState('closed', 'closed');
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.connected;
    this.connected = undefined;
    await this.attempt?.catch(() => undefined);
    this.states.dispose();
    this.changes.dispose();
    if (c) await Promise.all([c.feed.close(), c.store.close()]).catch(() => undefined);
  }
}

/**
 * A bounded rid → call set cache for the agreement of programs (call-agreement.ts): a record's call
 * set is worked out from its code once, then read from here, so a search whose candidates were seen
 * before reads no program row and runs no call extraction for them. One cache per connection.
 *
 * - Fresh: before an entry is used it asks the `record_changes` log (one indexed `MAX(seq)` read when
 *   nothing changed, ~7 µs) what changed since the position it last caught up to (the one it was made at
 *   at first), and drops those records' entries (any insert, status, question, code or vector change,
 *   purge, by any process); a log that no longer reaches back clears it. A changed record is read again
 *   on its next use. (Entries filled after a change but before the catch-up may be dropped too: read again.)
 * - Bounded: at most {@link CALL_SET_CACHE_ENTRIES} entries, the oldest filled dropped first. An entry
 *   is a rid, an interned call-set key and a 53-bit hash of the code: about
 *   {@link CALL_SET_CACHE_ENTRY_BYTES} bytes, so under 1 MB full. It is outside the memory budget's
 *   shares (memory-budget.ts) as a fixed small cap, like the re-ranking's question shapes.
 *
 * @example
 * ```ts
 * const cache = callSetCacheOf(db);
 * const sets = cache.callSets(['12', '40'], programsReader(db)); // Map { '12' => { calls: 'groupby', identity: 123… }, … }
 * ```
 */
import { BoundedMap } from '../../bounded-map';
import { hash53 } from '../../text-hash';
import { codeCallNames } from '../../similarity/text/code-tokens';
import { RecordChangeLog } from '../sqlite/record-changes';
import type { Database } from '../sqlite/database';

/** Entries held at most (the oldest filled dropped first): a search takes part with ~10–20 records. */
export const CALL_SET_CACHE_ENTRIES = 8192;
/** Estimated bytes of one entry (Map slot, entry object, the numbers; call-set keys are interned, shared). */
export const CALL_SET_CACHE_ENTRY_BYTES = 96;

/** A record's program as the agreement needs it: the names it calls, and which program it is. */
export interface CallSet {
  /** The names the program calls, sorted, joined ('' for none): two programs agree when these are equal. */
  calls: string;
  /** The program's identity (a 53-bit hash of its code as stored): copies count once. */
  identity: number;
}

/** A record's program as read from the store. */
export interface AgreementProgram {
  code: string;
  language: string;
}

/** The names a program calls, sorted, joined: two programs agree when their keys are equal ('' for none). */
export function callSetKey(code: string): string {
  const names = codeCallNames(code);
  if (names.size < 2) return names.size === 0 ? '' : (names.values().next().value as string);
  return [...names].sort().join(',');
}

/** The call set of a program (not cached). */
export function callSetOf(program: AgreementProgram): CallSet {
  return { calls: callSetKey(program.code), identity: hash53(program.code) };
}

/** Call sets from a reader of programs, nothing cached (a key it leaves out or maps to null: gone). */
export function uncachedCallSets(programsOf: (keys: readonly string[]) => ReadonlyMap<string, AgreementProgram | null>): (keys: readonly string[]) => Map<string, CallSet | null> {
  return (keys) => {
    const out = new Map<string, CallSet | null>();
    for (const [key, program] of programsOf(keys)) out.set(key, program ? callSetOf(program) : null);
    return out;
  };
}

export class CallSetCache {
  private readonly entries: BoundedMap<number, CallSet>;
  /** Call-set keys held once (many records share one: `sql`, `split`). */
  private readonly keys = new Map<string, string>();
  private readonly log: RecordChangeLog;
  private seq: number;

  constructor(db: Database, readonly capacity = CALL_SET_CACHE_ENTRIES) {
    this.entries = new BoundedMap(capacity);
    this.log = new RecordChangeLog(db);
    this.seq = this.log.head();
  }

  /** Entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** Estimated bytes held (entries; the interned keys are counted by their characters). */
  get bytes(): number {
    let keyBytes = 0;
    for (const k of this.keys.keys()) keyBytes += 2 * k.length + 32;
    return this.entries.size * CALL_SET_CACHE_ENTRY_BYTES + keyBytes;
  }

  /**
   * The call sets of `keys` (rids as strings): held ones from the cache, the others through `programsOf`
   * in one read (then held). A key `programsOf` leaves out or maps to null (not active) maps to null, not held.
   */
  callSets(keys: readonly string[], programsOf: (keys: readonly string[]) => ReadonlyMap<string, AgreementProgram | null>): Map<string, CallSet | null> {
    const out = new Map<string, CallSet | null>();
    const missing: string[] = [];
    // The log is asked only once some entry would be used (a search none of whose records is held reads none of it).
    let fresh = false;
    for (const key of keys) {
      let held = this.entries.get(Number(key));
      if (held && !fresh) {
        this.catchUp();
        fresh = true;
        held = this.entries.get(Number(key));
      }
      if (held) out.set(key, held);
      else missing.push(key);
    }
    if (missing.length === 0) return out;
    const programs = programsOf(missing);
    for (const key of missing) {
      const program = programs.get(key);
      if (!program) {
        out.set(key, null);
        continue;
      }
      const set = callSetOf(program);
      set.calls = this.intern(set.calls);
      out.set(key, set);
      const rid = Number(key);
      if (Number.isInteger(rid)) this.entries.set(rid, set);
    }
    return out;
  }

  /** Drops the entries of records changed since the last use (all of them when the log no longer reaches back). */
  private catchUp(): void {
    const changes = this.log.since(this.seq, Number.POSITIVE_INFINITY);
    this.seq = changes.head;
    if ('reload' in changes) this.clear();
    else for (const rid of changes.rids) this.entries.delete(rid);
  }

  private intern(calls: string): string {
    const held = this.keys.get(calls);
    if (held !== undefined) return held;
    // The interned keys are few (distinct call sets seen); past the cap they start over (held entries keep theirs).
    if (this.keys.size >= this.capacity) this.keys.clear();
    this.keys.set(calls, calls);
    return calls;
  }

  clear(): void {
    this.entries.clear();
    this.keys.clear();
  }
}

const caches = new WeakMap<Database, CallSetCache>();

/** The call-set cache of a connection (one per connection, made on first use). */
export function callSetCacheOf(db: Database): CallSetCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = new CallSetCache(db);
    caches.set(db, cache);
  }
  return cache;
}

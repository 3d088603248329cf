import { performance } from 'node:perf_hooks';
import type { SessionRow } from './auth.repository.js';
import type { SessionWatcher } from '../db/database.js';

/**
 * Signed-in requests' sessions, kept in memory for a short while (`SESSION_CACHE_MS`), so that a request does not
 * read its session from the database each time: on PostgreSQL that statement's round trip was one of a signed-in
 * list call's three.
 *
 * A change to an account or to its sessions (a logout, a password change, a suspension, a new name, a deletion)
 * must still count on the very next request, on every instance. The database says so itself: migration 0032's
 * triggers fire on every update or delete of a `users` or `sessions` row, whoever writes it, and tell
 *  - this process at once, while the statement runs (`changing`): on PostgreSQL a RAISE NOTICE to the connection
 *    that wrote, on SQLite a function of the process's own connection. The account's sessions are dropped and not
 *    kept again for `HOLD_MS`: the change is not committed yet, and a read in between would see the old row.
 *  - every instance once it commits (`changed`): PostgreSQL's NOTIFY, heard by each instance's listening connection.
 *    The account's sessions are dropped, and a read that began before the notice is not kept.
 * Nothing is kept or served while the instance cannot hear the notices (its listening connection is down, and
 * until it listens again): it then reads every session from the database, as without the cache.
 *
 * Changes made outside the triggers' reach count after `SESSION_CACHE_MS` at most: on SQLite, another process
 * writing the same file (the admin command line's `create-admin`).
 */
/** How long a notice's mark is kept against reads in flight (and how often old marks go). */
const MARKS_KEPT_MS = 60_000;

export class SessionCache {
  /** How long after a change this process makes that the account's sessions are read from the database. */
  static readonly HOLD_MS = 10_000;

  private readonly entries = new Map<string, { row: SessionRow; until: number }>();
  private readonly byUser = new Map<string, Set<string>>();
  /** When the last notice of each account arrived (performance.now()), and until when it is held. */
  private readonly changedAt = new Map<string, number>();
  private readonly heldUntil = new Map<string, number>();
  private liveSince: number | null = null;
  private prunedAt = performance.now();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 50_000,
  ) {}

  /**
   * The session behind a token's hash, when kept and still good for another request. Only its time is checked here:
   * going deaf empties the cache, and a notice drops the account's sessions before any hold starts (`keep` refuses
   * a held account).
   */
  get(tokenHash: string, nowMs: number): SessionRow | undefined {
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (nowMs >= entry.until) {
      this.drop(tokenHash);
      return undefined;
    }
    return entry.row;
  }

  /** A mark taken before the database is asked: `keep` refuses a row read before a notice of its account. */
  begin(): number {
    return performance.now();
  }

  /** Keeps a row read from the database since `begun`, until the cache's time is up or the session ends. */
  keep(tokenHash: string, row: SessionRow, begun: number, nowMs: number): void {
    // A read slower than the marks are kept for is not kept: a notice in its time may be forgotten already.
    if (this.liveSince === null || begun <= this.liveSince || performance.now() - begun > MARKS_KEPT_MS) return;
    const changed = this.changedAt.get(row.id);
    if ((changed !== undefined && begun <= changed) || this.held(row.id)) return;
    const until = Math.min(nowMs + this.ttlMs, Date.parse(row.expiresAt));
    if (!(until > nowMs)) return;
    this.drop(tokenHash);
    if (this.entries.size >= this.maxEntries) this.drop(this.entries.keys().next().value!);
    this.entries.set(tokenHash, { row, until });
    let tokens = this.byUser.get(row.id);
    if (!tokens) this.byUser.set(row.id, (tokens = new Set()));
    tokens.add(tokenHash);
  }

  /** A change to the account or its sessions is being written by this process (not committed yet). */
  changing(userId: string): void {
    this.changed(userId);
    this.heldUntil.set(userId, performance.now() + SessionCache.HOLD_MS);
  }

  /** A change to the account or its sessions was committed. */
  changed(userId: string): void {
    for (const tokenHash of this.byUser.get(userId) ?? []) this.entries.delete(tokenHash);
    this.byUser.delete(userId);
    const now = performance.now();
    this.changedAt.set(userId, now);
    // A mark only matters against the reads in flight when it came (`keep` refuses a read slower than the marks are
    // kept): once in that time, older ones go, with the holds that ended.
    if (now - this.prunedAt > MARKS_KEPT_MS) this.prune(now);
  }

  /** Whether the instance hears every change now; going deaf or listening again both start from empty. */
  setLive(live: boolean): void {
    this.entries.clear();
    this.byUser.clear();
    this.liveSince = live ? performance.now() : null;
  }

  /** The database's notices, as this cache takes them (DatabaseHandle.watchSessions). */
  watcher(): SessionWatcher {
    return { changing: (userId) => this.changing(userId), changed: (userId) => this.changed(userId), live: (live) => this.setLive(live) };
  }

  /** Whether sessions are kept now: the instance hears every change. */
  get live(): boolean {
    return this.liveSince !== null;
  }

  get size(): number {
    return this.entries.size;
  }

  private held(userId: string): boolean {
    const until = this.heldUntil.get(userId);
    if (until === undefined) return false;
    if (performance.now() < until) return true;
    this.heldUntil.delete(userId);
    return false;
  }

  private drop(tokenHash: string): void {
    const entry = this.entries.get(tokenHash);
    if (!entry) return;
    this.entries.delete(tokenHash);
    const tokens = this.byUser.get(entry.row.id);
    tokens?.delete(tokenHash);
    if (tokens?.size === 0) this.byUser.delete(entry.row.id);
  }

  private prune(now: number): void {
    this.prunedAt = now;
    for (const [userId, at] of this.changedAt) if (now - at > MARKS_KEPT_MS) this.changedAt.delete(userId);
    for (const [userId, until] of this.heldUntil) if (now >= until) this.heldUntil.delete(userId);
  }
}

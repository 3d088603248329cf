import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { CompiledQuery } from 'kysely';

/**
 * A read-only SQLite connection on a worker thread, for reads that may take long (list totals over a large
 * catalogue): better-sqlite3 is synchronous, so such a query on the main connection blocks the event loop and
 * every request with it. WAL lets this reader run while the main connection writes; it sees committed data only.
 * One worker, queries answered in order; the worker does not keep the process alive.
 */
export class SqliteReader {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(rows: unknown[]): void; reject(err: Error): void }>();
  private nextId = 1;

  constructor(file: string) {
    const module = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, module } });
    this.worker.unref();
    this.worker.on('message', (m: { id: number; rows?: unknown[]; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error !== undefined) p.reject(new Error(m.error));
      else p.resolve(m.rows ?? []);
    });
    const failAll = (err: Error) => {
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', failAll);
    this.worker.on('exit', () => failAll(new Error('SQLite reader stopped')));
  }

  /** Runs a compiled (read-only) query; rows come back with the database's column names. */
  all(query: CompiledQuery): Promise<unknown[]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, sql: query.sql, params: query.parameters });
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const statements = new Map();
parentPort.on('message', ({ id, sql, params }) => {
  try {
    let s = statements.get(sql);
    if (!s) {
      if (statements.size >= 200) statements.clear();
      s = db.prepare(sql);
      statements.set(sql, s);
    }
    parentPort.postMessage({ id, rows: s.all(...params) });
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
});
`;

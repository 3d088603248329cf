/**
 * Named (prepared) statements on PostgreSQL. Sent as plain text with its values, a statement is parsed, analysed and
 * planned by the server every time, though the site runs the same few hundred texts over and over; a named one is
 * parsed once per connection (node-postgres then sends only its values) and its plan kept (PostgreSQL's plan cache
 * chooses, per statement, between a plan for the values at hand and one kept for all). Measured: the crowd of 2,000
 * signed-in users on one 2-core machine had 18% more requests answered out of the same CPU (docs/deploy.md).
 *
 * Which texts get a name: a statement's text on its second run (one-off statements, such as migrations and odd list
 * shapes, never take one), reads and writes only (never transaction control, which node-postgres sends as a simple
 * query), and at most `max` texts per pool: every connection keeps every name it has parsed until it closes, so the
 * server's memory per connection stays bounded. A name stands for one text for the pool's whole life.
 */

/** Texts named per pool unless PG_NAMED_STATEMENTS says otherwise. */
export const NAMED_STATEMENTS_DEFAULT = 500;

const NAMEABLE = /^\s*(select|insert|update|delete|with)\b/i;
/** Texts seen once, kept to recognise their second run; forgotten all at once when this many pile up. */
const SEEN_MAX = 10_000;

export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly seen = new Set<string>();

  constructor(private readonly max: number) {}

  /** The name to run `text` under, or undefined to send it as it is. */
  nameOf(text: string): string | undefined {
    const name = this.names.get(text);
    if (name !== undefined || this.names.size >= this.max) return name;
    if (!this.seen.has(text)) {
      if (!NAMEABLE.test(text)) return undefined;
      if (this.seen.size >= SEEN_MAX) this.seen.clear();
      this.seen.add(text);
      return undefined;
    }
    this.seen.delete(text);
    const given = `s${this.names.size}`;
    this.names.set(text, given);
    return given;
  }

  get size(): number {
    return this.names.size;
  }
}

type QueryFn = (...args: unknown[]) => unknown;

/** PostgreSQL's "cached plan must not change result type": a table a named statement reads changed its columns. */
const PLAN_CHANGED = '0A000';

/**
 * Sends the client's statements under their names: Kysely's driver calls `client.query(text, values)`; that call
 * becomes `client.query({ name, text, values })` when the text has a name.
 *
 * A migration run by another instance (a newer version starting) can change a table under a name this connection
 * holds: PostgreSQL then refuses the name for good on this connection. The connection retires the name (sends that text
 * as it is from then on) and, outside a transaction, runs the statement again at once; inside one, the transaction has
 * failed with it, so the error goes to its caller as any other would.
 */
export function nameStatementsOf(client: { query: QueryFn }, names: StatementNames): void {
  const query = client.query.bind(client) as QueryFn;
  const retired = new Set<string>();
  // Kysely's transactions are plain `begin` / `commit` / `rollback` statements on the connection that runs them.
  let inTransaction = false;
  client.query = (...args: unknown[]) => {
    const [text, values] = args;
    if (typeof text !== 'string') return query(...args);
    if (/^\s*(begin|start transaction)\b/i.test(text)) inTransaction = true;
    else if (/^\s*(commit|rollback)\s*$/i.test(text)) inTransaction = false;
    if (!Array.isArray(values) || args.length !== 2) return query(...args);
    const name = names.nameOf(text);
    if (name === undefined || retired.has(name)) return query(text, values);
    const again = !inTransaction;
    return (query({ name, text, values }) as Promise<unknown>).catch((err: { code?: string }) => {
      if (err?.code !== PLAN_CHANGED) throw err;
      retired.add(name);
      if (!again) throw err;
      return query(text, values);
    });
  };
}

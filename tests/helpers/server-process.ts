import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import pg from 'pg';

/**
 * The real server (`node --import tsx server/main.ts`) as a child process, for tests that kill -9 it, restart it
 * on the same data, or run several instances side by side. Output is kept (last 5,000 lines) for failure messages.
 */
export interface ServerProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** stdout + stderr lines (pino JSON at LOG_LEVEL). */
  logs: string[];
  /** SIGKILL, no cleanup of any kind; resolves once the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM (graceful drain); resolves once the process is gone. */
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export async function startServerProcess(env: Record<string, string | undefined>, opts: { port?: number; timeoutMs?: number; /** Command-line arguments after server/main.ts, e.g. `--seed-demo`. */ args?: string[]; /** Variables the process must not get at all (LOG_LEVEL included). */ unset?: string[]; /** Another checkout to run (default: this one). */ cwd?: string } = {}): Promise<ServerProcess> {
  const port = opts.port ?? (await freePort());
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(DATABASE_URL|REDIS_URL|PG_SCHEMA|NODE_ENV|VITEST.*)$/.test(k)) childEnv[k] = v;
  Object.assign(childEnv, { HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'warn' });
  for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
  for (const k of opts.unset ?? []) delete childEnv[k];
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', ...(opts.args ?? [])], { cwd: opts.cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.trim()) logs.push(line);
    if (logs.length > 5000) logs.splice(0, logs.length - 5000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const end = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before listening:\n${logs.join('\n')}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`server did not answer /health within the time:\n${logs.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    child,
    logs,
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A fresh PostgreSQL schema on DATABASE_URL, and its removal. */
export async function createPgSchema(databaseUrl: string, prefix = 'p'): Promise<{ schema: string; drop(): Promise<void> }> {
  const schema = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  return {
    schema,
    async drop() {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}

import http from 'node:http';
import net from 'node:net';

/**
 * A TCP proxy that can be cut (every open connection destroyed, new ones refused) and restored on the same
 * port: a network partition or a database restart as seen from the app, without touching the shared server.
 */
export interface TcpProxy {
  port: number;
  /** Connections currently open through the proxy. */
  open(): number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const make = () =>
    net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => {});
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
  let server = make();
  const listen = (port: number) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const shut = () => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    server.close(() => resolve());
  });
  return {
    port,
    open: () => sockets.size / 2,
    async cut() {
      await shut();
    },
    async restore() {
      server = make();
      await listen(port);
    },
    close: shut,
  };
}

/**
 * A small HTTP load balancer: each request goes to the next backend (round robin) unless `sticky` is set, in which
 * case a client keeps the backend of its `lb` cookie (what nginx `hash $cookie_…` or `ip_hash` would do). WebSocket
 * upgrades are passed through as raw TCP. Adds `x-forwarded-for` / `x-forwarded-proto` like nginx, and answers with
 * `x-backend: <index>` so tests can see who served them.
 */
export interface HttpBalancer {
  url: string;
  /** Requests served per backend. */
  served: number[];
  close(): Promise<void>;
}

export async function startHttpBalancer(backends: { host: string; port: number }[], opts: { sticky?: boolean } = {}): Promise<HttpBalancer> {
  let next = 0;
  const served = backends.map(() => 0);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const pick = (req: http.IncomingMessage): number => {
    if (opts.sticky) {
      const m = /(?:^|;\s*)lb=(\d+)/.exec(req.headers.cookie ?? '');
      if (m && Number(m[1]) < backends.length) return Number(m[1]);
    }
    const i = next;
    next = (next + 1) % backends.length;
    return i;
  };
  const forwarded = (req: http.IncomingMessage) => ({
    ...req.headers,
    'x-forwarded-for': [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', '),
    'x-forwarded-proto': 'http',
  });
  const server = http.createServer((req, res) => {
    const i = pick(req);
    served[i]!++;
    const b = backends[i]!;
    const up = http.request({ host: b.host, port: b.port, method: req.method, path: req.url, headers: forwarded(req), agent }, (r) => {
      const headers = { ...r.headers, 'x-backend': String(i) } as http.OutgoingHttpHeaders;
      if (opts.sticky && !/(?:^|;\s*)lb=\d+/.test(req.headers.cookie ?? '')) {
        const set = ([] as string[]).concat((r.headers['set-cookie'] as string[] | undefined) ?? []);
        headers['set-cookie'] = [...set, `lb=${i}; Path=/; HttpOnly`];
      }
      res.writeHead(r.statusCode ?? 502, headers);
      r.pipe(res);
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Bad gateway', code: 'BAD_GATEWAY' }));
    });
    req.pipe(up);
  });
  server.on('upgrade', (req, socket, head) => {
    const i = pick(req);
    served[i]!++;
    const b = backends[i]!;
    const up = net.connect(b.port, b.host, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (const [k, v] of Object.entries(forwarded(req))) for (const one of ([] as string[]).concat(v as string | string[])) lines.push(`${k}: ${one}`);
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) up.write(head);
      socket.pipe(up).pipe(socket);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url,
    served,
    async close() {
      server.closeAllConnections();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

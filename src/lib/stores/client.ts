/**
 * The API clients (src/lib/api/index.ts: auth, catalogue, engagement, money, with ofetch behind them) as the stores
 * reach them: loaded with the first request a store makes, not with the page. A guest who only reads a page never
 * downloads them; the first click that needs the server waits for one small file. Islands never call this: they
 * call the stores.
 */
type Clients = typeof import('../api/index.js');
let loading: Promise<Clients> | undefined;

export function client(): Promise<Clients> {
  loading ??= import('../api/index.js').catch((err: unknown) => {
    loading = undefined; // a failed load (offline) is tried again by the next request
    throw err;
  });
  return loading;
}

/** One request through the clients: `await call(({ auth }) => auth.me())`. */
export async function call<T>(request: (clients: Clients) => Promise<T>): Promise<T> {
  return request(await client());
}

type Request<F> = F extends (...args: infer A) => infer R ? (...args: A) => R : never;

/** A store's stand-in for one request of an area's client, typed like it and loading the clients on first use: `via('auth', 'register')`. */
export function via<A extends keyof Clients, K extends keyof Clients[A]>(area: A, name: K): Request<Clients[A][K]> {
  return (async (...args: unknown[]) => {
    const clients = await client();
    return (clients[area][name] as unknown as (...a: unknown[]) => unknown)(...args);
  }) as unknown as Request<Clients[A][K]>;
}

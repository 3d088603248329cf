/**
 * The API client (src/lib/api.ts, with ofetch behind it) as the stores reach it: loaded with the first request a
 * store makes, not with the page. A guest who only reads a page never downloads it; the first click that needs the
 * server waits for one small file. Islands never call this: they call the stores.
 */
let loading: Promise<typeof import('../api.js')> | undefined;

export function client(): Promise<typeof import('../api.js')> {
  loading ??= import('../api.js').catch((err: unknown) => {
    loading = undefined; // a failed load (offline) is tried again by the next request
    throw err;
  });
  return loading;
}

/** One request through the client: `await call(({ api }) => api.me())`. */
export async function call<T>(request: (client: typeof import('../api.js')) => Promise<T>): Promise<T> {
  return request(await client());
}

type Api = (typeof import('../api.js'))['api'];
type Request<K extends keyof Api> = (...args: Parameters<Api[K]>) => ReturnType<Api[K]>;

/** A store's stand-in for one request of the client, typed like it and loading the client on first use. */
export function viaApi<K extends keyof Api>(name: K): Request<K> {
  return (async (...args: Parameters<Api[K]>) => {
    const { api } = await client();
    return (api[name] as unknown as (...a: unknown[]) => unknown)(...args);
  }) as unknown as Request<K>;
}

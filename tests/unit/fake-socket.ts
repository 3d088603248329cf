import { vi } from 'vitest';

/**
 * A stand-in for socket.io-client's `io()` in jsdom tests: records the options, lets a test fire socket and
 * manager events, and records what the client emits. Use with
 * `vi.mock('socket.io-client', async () => (await import('./fake-socket.js')).socketIoMock)`.
 */

type Fn = (...args: any[]) => void;

class Emitter {
  handlers = new Map<string, Set<Fn>>();
  on(event: string, fn: Fn) {
    if (!this.handlers.has(event)) this.handlers.set(event, new Set());
    this.handlers.get(event)!.add(fn);
    return this;
  }
  off(event: string, fn?: Fn) {
    if (fn) this.handlers.get(event)?.delete(fn);
    else this.handlers.delete(event);
    return this;
  }
  removeAllListeners() {
    this.handlers.clear();
    return this;
  }
  fire(event: string, ...args: unknown[]) {
    for (const fn of [...(this.handlers.get(event) ?? [])]) fn(...args);
  }
  listeners(event: string) {
    return [...(this.handlers.get(event) ?? [])];
  }
}

export class FakeSocket extends Emitter {
  connected = false;
  active = true;
  closed = false;
  readonly io = new Emitter();
  readonly emitted: Array<{ event: string; payload: unknown; ack?: Fn }> = [];
  constructor(
    readonly url: string | undefined,
    readonly options: Record<string, any>,
  ) {
    super();
  }
  emit(event: string, payload?: unknown, ack?: Fn) {
    this.emitted.push({ event, payload, ack });
    return this;
  }
  close() {
    this.closed = true;
    this.connected = false;
    this.active = false;
    return this;
  }
  connect() {
    this.active = true;
    return this;
  }
  /** The server accepted the connection. */
  serverConnect() {
    this.connected = true;
    this.fire('connect');
  }
  serverDisconnect(reason = 'transport close') {
    this.connected = false;
    this.fire('disconnect', reason);
  }
  /** What the client emitted for `event`, in order. */
  sent(event: string) {
    return this.emitted.filter((e) => e.event === event);
  }
}

export const created: FakeSocket[] = [];

export const socketIoMock = {
  io: vi.fn((urlOrOptions?: string | Record<string, any>, maybeOptions?: Record<string, any>) => {
    const url = typeof urlOrOptions === 'string' ? urlOrOptions : undefined;
    const options = (typeof urlOrOptions === 'string' ? maybeOptions : urlOrOptions) ?? {};
    const socket = new FakeSocket(url, options);
    created.push(socket);
    return socket;
  }),
};

export function lastSocket(): FakeSocket {
  const s = created.at(-1);
  if (!s) throw new Error('no socket was created');
  return s;
}

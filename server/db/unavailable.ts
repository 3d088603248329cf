const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);

/** A lost or refused PostgreSQL connection (server restarting, network cut), as opposed to a bug. */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e) return false;
  if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  const msg = typeof e.message === 'string' ? e.message : '';
  return /^Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(msg);
}

import { z } from 'zod';
import { badRequest } from './errors.js';

/** Conventions for every list: `limit` (1..100), `offset`, or an opaque `cursor` for deep keyset paging. */
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(12),
  offset: z.coerce.number().int().min(0).max(10_000).default(0),
  cursor: z.string().max(300).optional(),
});
export type PageQuery = z.infer<typeof pageQuery>;

/**
 * A cursor is the last row's sort value and id, so the next page is `WHERE (sort, id) < (value, id)`. A list ordered by
 * relevance (a keyword search) also carries the row's rank `r`: the next page is the rest of that rank, then the ranks
 * after it (server/catalogue/search.repository.ts).
 */
export interface Cursor {
  v: string | number | null;
  id: string;
  r?: number;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor.r === undefined ? [cursor.v, cursor.id] : [cursor.v, cursor.id, cursor.r])).toString('base64url');
}

export function decodeCursor(raw: string | undefined): Cursor | undefined {
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && (parsed.length === 2 || parsed.length === 3) && typeof parsed[1] === 'string') {
      const v = parsed[0];
      const r = parsed[2];
      // No NUL: PostgreSQL refuses it in text (a 500), and the NUL guard cannot see inside a cursor.
      const hasNul = (typeof v === 'string' && v.includes('\u0000')) || parsed[1].includes('\u0000');
      // The rank is a small whole number; whether the list wants one is checked with its order (checkCursor).
      const rankOk = parsed.length === 2 || (Number.isInteger(r) && r >= 0 && r <= 9);
      if (!hasNul && rankOk && (v === null || typeof v === 'string' || typeof v === 'number')) return parsed.length === 2 ? { v, id: parsed[1] } : { v, id: parsed[1], r };
    }
  } catch {
    // fall through to the error below
  }
  throw badRequest('Invalid cursor');
}

export function listSchema<T extends z.ZodTypeAny>(item: T) {
  return z.object({ items: z.array(item), total: z.number().int(), nextCursor: z.string().nullable().optional() });
}

import type { z } from 'zod';
import { AppError } from './errors.js';

/** Validates form fields (multipart) the way route schemas validate JSON: 400 VALIDATION_FAILED with details. */
export function parseInput<T extends z.ZodTypeAny>(schema: T, data: unknown): z.infer<T> {
  const result = schema.safeParse(data ?? {});
  if (result.success) return result.data;
  const details = result.error.issues.map((i) => ({ path: ['body', ...i.path.map(String)].join('.'), message: i.message }));
  const first = details[0]!;
  throw new AppError(400, 'VALIDATION_FAILED', `Invalid ${first.path}: ${first.message}`, details);
}

import { z } from 'zod';

/** The body of every error answer (server/http/error-handler.ts), for route response schemas and the OpenAPI document. */
export const apiErrorSchema = z.object({
  message: z.string(),
  code: z.string(),
  details: z.unknown().optional(),
});

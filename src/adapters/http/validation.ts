// Parses request input with a zod schema; a failure is VALIDATION_ERROR with
// the failing fields, and nothing has been changed yet.
import type { z } from 'zod';
import { DomainError } from '../../domain/errors.js';

export function parse<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const res = schema.safeParse(input);
  if (res.success) return res.data;
  throw new DomainError(
    'VALIDATION_ERROR',
    'Request validation failed',
    res.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
  );
}

// The query schema of every list endpoint: page (from 1) and limit (1..100,
// default 20). Anything else in them is a VALIDATION_ERROR.
import { z } from 'zod';
import { PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT } from '../../domain/pagination.js';

const positiveInt = (max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().min(1).max(max));

export const pageQuery = z.object({
  page: positiveInt(1_000_000_000).default(1),
  limit: positiveInt(PAGE_MAX_LIMIT).default(PAGE_DEFAULT_LIMIT),
});

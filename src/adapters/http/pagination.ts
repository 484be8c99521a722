// The query schema of every list endpoint: page (from 1) and limit (1..100,
// default 20). Anything else in them is a VALIDATION_ERROR.
import { z } from 'zod';
import { PAGE_DEFAULT_LIMIT, PAGE_MAX, PAGE_MAX_LIMIT } from '../../domain/pagination.js';

const positiveInt = (max: number) =>
  z
    .string()
    // One spelling per number: no sign, no leading zero (limit=05 is not 5).
    .regex(/^(0|[1-9]\d*)$/, 'must be a positive integer')
    .refine((v) => v.length <= 16, `must be at most ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(max, `must be at most ${max}`))
    // On the wire a query string; documented as the integer it stands for.
    .meta({
      override: ({ jsonSchema }) => {
        delete jsonSchema.pattern;
        Object.assign(jsonSchema, { type: 'integer', minimum: 1, maximum: max });
      },
    });

export const pageQuery = z.object({
  page: positiveInt(PAGE_MAX).default(1).meta({ description: 'Page number, from 1', override: { default: 1 } }),
  limit: positiveInt(PAGE_MAX_LIMIT).default(PAGE_DEFAULT_LIMIT).meta({ description: 'Page size', override: { default: PAGE_DEFAULT_LIMIT } }),
});

// Schemas shared by the resources' responses: identifiers, timestamps,
// amounts, the pagination envelope and the error body. Each validates
// (in tests), types the presenters and documents the API (openapi.ts).
import { z } from 'zod';
import { ERROR_CODES } from '../../domain/error-catalogue.js';
import { ASSETS, BASE_CHAINS, NETWORKS } from '../../domain/money/networks.js';

export const uuid = z.uuid();
export const timestamp = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601 date-time (UTC)' });
export const resolvedChain = z.enum(NETWORKS).meta({ id: 'ResolvedChain', description: 'A network: a base chain on the key\'s side' });
export const baseChain = z.enum(BASE_CHAINS).meta({ id: 'BaseChain' });
export const asset = z.enum(ASSETS).meta({ id: 'Asset' });
/** A decimal string with exactly the asset's places (6, or 18 for ETH and BNB). */
export const amountString = z.string().regex(/^\d{1,30}\.\d{6}(\d{12})?$/).meta({ description: 'Decimal string with the asset\'s places', example: '100.000000' });
/** A fraction with 6 places, e.g. 0.009000 for 0.9 %. */
export const rateString = z.string().regex(/^\d+\.\d{6}$/).meta({ example: '0.009000' });

/** The path of a single resource: `{id}`. Any string reaches the route (a malformed id is simply not found), documented as the UUID it should be. */
export const idParams = z.object({ id: z.string().meta({ override: { type: 'string', format: 'uuid' } }) });

/** The envelope of every list (docs/api.md#pagination). */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    data: z.array(item),
    total: z.number().int().min(0),
    page: z.number().int().min(1),
    limit: z.number().int().min(1).max(100),
  });

export const validationDetail = z.strictObject({ path: z.string(), message: z.string() });

/** Every error response: `{ error, code, details? }` (docs/errors.md). */
export const errorBody = z
  .strictObject({
    error: z.string().meta({ description: 'Human text; may change: never branch on it' }),
    code: z.enum(ERROR_CODES as [string, ...string[]]).meta({ description: 'Stable: branch on this' }),
    details: z.union([z.array(validationDetail), z.record(z.string(), z.unknown())]).optional(),
  })
  .meta({ id: 'Error' });

export type ErrorBody = z.infer<typeof errorBody>;

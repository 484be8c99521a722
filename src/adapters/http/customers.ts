// /v2/customers (docs/api.md#customers): create (idempotent), list, read, update.
import { z } from 'zod';
import { CreateCustomer } from '../../application/customers/create-customer.js';
import { ReadCustomers } from '../../application/customers/read-customers.js';
import { UpdateCustomer } from '../../application/customers/update-customer.js';
import { RunIdempotently } from '../../application/idempotency/run-idempotently.js';
import {
  CUSTOMER_STATUSES,
  EXTERNAL_REF_MAX,
  LABEL_MAX,
  METADATA_MAX_BYTES,
  METADATA_MAX_KEYS,
  type Customer,
} from '../../domain/customers/customer.js';
import { mapPage } from '../../domain/pagination.js';
import { principalOf } from './authenticate.js';
import { idempotent } from './idempotency.js';
import { pageQuery } from './pagination.js';
import { parse } from './validation.js';
import { idParams, pageOf, timestamp, uuid } from './common-schemas.js';
import { EXAMPLES } from './examples.js';
import type { Resource } from './route.js';
import { scope } from '../../domain/auth/principal.js';

/** Every number in it survives a round trip: a large integer would come back rounded, so send it as a string. */
function numbersAreExact(root: unknown): boolean {
  const stack = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) return false;
    if (v !== null && typeof v === 'object') stack.push(...Object.values(v));
  }
  return true;
}

// Opaque to the service (docs/api.md#customers): validated, then kept exactly
// as sent (z.record would rebuild the object and lose a "__proto__" key on
// the way).
const metadata = z
  .custom<Record<string, unknown>>((m) => typeof m === 'object' && m !== null && !Array.isArray(m), 'must be a JSON object')
  .meta({
    override: {
      type: 'object',
      additionalProperties: {},
      maxProperties: METADATA_MAX_KEYS,
      description: `Opaque JSON object, kept as sent: at most ${METADATA_MAX_KEYS} keys of at most 100 characters, ${METADATA_MAX_BYTES} bytes as JSON`,
    },
  })
  .refine((m) => Object.keys(m).every((k) => k.length <= 100), 'keys must be at most 100 characters')
  .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, `at most ${METADATA_MAX_KEYS} keys`)
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= METADATA_MAX_BYTES, `at most ${METADATA_MAX_BYTES} bytes as JSON`)
  .refine(numbersAreExact, 'integers beyond ±2^53 lose digits as JSON numbers: send them as strings')
  .nullable();

export const createBody = z.strictObject({
  external_ref: z.string().min(1).max(EXTERNAL_REF_MAX),
  label: z.string().max(LABEL_MAX).nullable().optional(),
  metadata: metadata.optional(),
});

export const patchBody = z.strictObject({
  label: z.string().max(LABEL_MAX).nullable().optional(),
  metadata: metadata.optional(),
  status: z.enum(CUSTOMER_STATUSES).optional(),
});

const listQuery = pageQuery.extend({
  status: z.enum(CUSTOMER_STATUSES).optional(),
  external_ref: z.string().min(1).max(EXTERNAL_REF_MAX).optional(),
});

export const customerSchema = z
  .strictObject({
    id: uuid,
    external_ref: z.string(),
    label: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    status: z.enum(CUSTOMER_STATUSES),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Customer', examples: [EXAMPLES.customer] });
export type CustomerView = z.infer<typeof customerSchema>;

export const presentCustomer = (c: Customer): CustomerView => ({
  id: c.id,
  external_ref: c.externalRef,
  label: c.label,
  metadata: c.metadata,
  status: c.status,
  created_at: c.createdAt.toISOString(),
  updated_at: c.updatedAt.toISOString(),
});

interface CustomerDeps {
  create: CreateCustomer;
  read: ReadCustomers;
  update: UpdateCustomer;
  idempotency: RunIdempotently;
}

export const customersResource: Resource<CustomerDeps> = {
  mount: '/customers',
  tag: 'Customers',
  deps: (resolve) => ({
    create: resolve(CreateCustomer),
    read: resolve(ReadCustomers),
    update: resolve(UpdateCustomer),
    idempotency: resolve(RunIdempotently),
  }),
  routes: [
    {
      operationId: 'createCustomer',
      summary: 'Create a customer',
      method: 'post',
      path: '/',
      access: scope('customers:write'),
      idempotent: true,
      request: { body: createBody },
      responses: { 201: { description: 'The customer', schema: customerSchema } },
      errors: ['CONFLICT'],
      handle: (deps) =>
        idempotent(deps.idempotency, async (req, res) => {
          const body = parse(createBody, req.body);
          const customer = await deps.create.execute(principalOf(res), {
            externalRef: body.external_ref,
            label: body.label ?? null,
            metadata: body.metadata ?? null,
          });
          return { status: 201, body: presentCustomer(customer) };
        }),
    },
    {
      operationId: 'listCustomers',
      summary: 'List customers, newest first',
      method: 'get',
      path: '/',
      access: scope('customers:read'),
      request: { query: listQuery },
      responses: { 200: { description: 'A page of customers', schema: pageOf(customerSchema) } },
      errors: [],
      handle: (deps) => async (req, res) => {
        const q = parse(listQuery, req.query);
        const page = await deps.read.list(principalOf(res), { status: q.status, externalRef: q.external_ref }, q);
        res.json(mapPage(page, presentCustomer));
      },
    },
    {
      operationId: 'getCustomer',
      summary: 'Get a customer',
      method: 'get',
      path: '/:id',
      access: scope('customers:read'),
      request: { params: idParams },
      responses: { 200: { description: 'The customer', schema: customerSchema } },
      errors: ['NOT_FOUND'],
      handle: (deps) => async (req, res) => {
        res.json(presentCustomer(await deps.read.get(principalOf(res), String(req.params.id))));
      },
    },
    {
      operationId: 'updateCustomer',
      summary: 'Update a customer: only the fields given change',
      method: 'patch',
      path: '/:id',
      access: scope('customers:write'),
      request: { params: idParams, body: patchBody },
      responses: { 200: { description: 'The customer as updated', schema: customerSchema } },
      errors: ['NOT_FOUND'],
      handle: (deps) => async (req, res) => {
        // The body must be an object: null, an array or no body at all is refused, and nothing changes.
        const body = parse(patchBody, req.body);
        const customer = await deps.update.execute(principalOf(res), String(req.params.id), body);
        res.json(presentCustomer(customer));
      },
    },
  ],
};

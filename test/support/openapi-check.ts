// Checks a response received by a test against the OpenAPI document: the
// operation's schema for that status, or the error body for a path the
// document does not name. Every signed call of the HTTP test client goes
// through it, so a response that drifts from the document fails its test.
import 'reflect-metadata';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { errorBody } from '../../src/adapters/http/common-schemas.js';
import { openApiDocument } from '../../src/adapters/http/openapi.js';

// ajv-formats is CommonJS with a default export.
type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;

type Document = ReturnType<typeof openApiDocument>;
let document: Document | undefined;
/** An ajv for OpenAPI 3.1 schemas (JSON Schema 2020-12) with the string formats. */
export function openApiAjv(): Ajv2020 {
  const a = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
  addFormats(a);
  return a;
}
const ajv = openApiAjv();
const compiled = new Map<string, ValidateFunction>();

/**
 * The published document leaves response objects open (clients must tolerate
 * added fields); the service itself must send exactly what is documented, so
 * the checks close every object schema that lists its properties.
 */
function closed<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(closed) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, closed(v)]));
  if ('properties' in copy && !('additionalProperties' in copy)) copy.additionalProperties = false;
  return copy as T;
}

function doc(): Document {
  if (!document) {
    document = openApiDocument();
    ajv.addSchema(closed(document) as object, 'openapi');
  }
  return document;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The document's path template that `path` matches, if any. */
export function operationPathOf(path: string): string | undefined {
  const bare = path.split('?')[0]!.replace(/\/+$/, '') || '/';
  return Object.keys(doc().paths ?? {}).find((template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(bare));
}

export class ResponseMismatch extends Error {}

/** Throws ResponseMismatch when the response does not match the document. */
export function checkResponse(method: string, path: string, status: number, body: unknown): void {
  const template = operationPathOf(path);
  const operation = template ? (doc().paths?.[template] as Record<string, { responses?: Record<string, unknown> }>)?.[method.toLowerCase()] : undefined;
  if (!template || !operation) {
    // No such operation: the answer is an error in the error body.
    const res = errorBody.safeParse(body);
    if (!res.success) throw new ResponseMismatch(`${method} ${path} → ${status}: not the error body: ${JSON.stringify(body).slice(0, 300)}`);
    return;
  }
  if (!operation.responses?.[String(status)]) {
    throw new ResponseMismatch(`${method} ${path} → ${status}: the document names no ${status} for ${method.toUpperCase()} ${template} (${JSON.stringify(body).slice(0, 200)})`);
  }
  const ref = `openapi#/${pointer('paths', template, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema')}`;
  let validate = compiled.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    compiled.set(ref, validate);
  }
  if (!validate(body)) {
    throw new ResponseMismatch(
      `${method} ${path} → ${status} does not match the document: ${ajv.errorsText(validate.errors)}; body ${JSON.stringify(body).slice(0, 400)}`,
    );
  }
}

/**
 * fetch for the SDK in end-to-end tests: every answer is checked against the
 * document before the SDK sees it; a mismatch rejects the call.
 */
export const checkedFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const text = await res.clone().text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: checked as such */
  }
  checkResponse(init?.method ?? 'GET', url.pathname + url.search, res.status, body);
  return res;
};

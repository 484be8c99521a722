// `npm run postman`: writes examples/postman/wallet-api.postman_collection.json,
// a Postman collection (v2.1) generated from the OpenAPI document: one folder
// per tag, one request per operation with its path variables, its query
// parameters (off until you fill them) and a sample body, and a collection-
// level pre-request script that signs every request as the API requires
// (docs/api.md#authentication). A test regenerates it and fails while the
// committed file differs.
import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { openApiDocument } from '../src/adapters/http/openapi.js';
import { isEntrypoint } from '../src/bootstrap/lifecycle.js';

export const COLLECTION_FILE = resolve(import.meta.dirname, '..', 'examples', 'postman', 'wallet-api.postman_collection.json');

/**
 * Runs in Postman's sandbox before every request. Signs
 * `TIMESTAMP.METHOD.PATH_WITH_QUERY.SHA256HEX(BODY)` with HMAC-SHA256 keyed
 * with the secret (docs/signing-test-vectors.md). The body is resolved
 * ({{variables}}) and written back, so the bytes signed are the bytes sent;
 * the path is signed as Postman sends it, path variables and enabled query
 * parameters filled in. POSTs get an Idempotency-Key unless the request has
 * one (set your own to retry the same create).
 */
export const SIGNING_SCRIPT = [
  '// Signs the request as the wallet service requires (docs/api.md#authentication, docs/signing-test-vectors.md).',
  "// In a function: the sandbox's own globals (CryptoJS among them) are not redeclared.",
  '(() => {',
  "  const cryptoJs = require('crypto-js');",
  "  const keyId = pm.variables.get('keyId');",
  "  const secret = pm.variables.get('secret');",
  '  if (!keyId || !secret) {',
  "    throw new Error('Set the collection variables keyId and secret (a key of .data/workspace.json, e.g. its test_key)');",
  '  }',
  '  const method = pm.request.method.toUpperCase();',
  '  const path = pm.variables.replaceIn(pm.request.url.getPathWithQuery());',
  "  let body = '';",
  "  if (pm.request.body && !pm.request.body.disabled && pm.request.body.mode === 'raw') {",
  "    body = pm.variables.replaceIn(pm.request.body.raw || '');",
  '    pm.request.body.update({ mode: pm.request.body.mode, raw: body, options: pm.request.body.options });',
  '  }',
  '  const timestamp = String(Math.floor(Date.now() / 1000));',
  '  const bodyHash = cryptoJs.SHA256(body).toString(cryptoJs.enc.Hex);',
  "  const signature = cryptoJs.HmacSHA256([timestamp, method, path, bodyHash].join('.'), secret).toString(cryptoJs.enc.Hex);",
  "  pm.request.headers.upsert({ key: 'X-Service-Key', value: keyId });",
  "  pm.request.headers.upsert({ key: 'X-Service-Timestamp', value: timestamp });",
  "  pm.request.headers.upsert({ key: 'X-Service-Signature', value: signature });",
  "  const hasKey = pm.request.headers.all().some((h) => !h.disabled && String(h.key).toLowerCase() === 'idempotency-key');",
  "  if (method === 'POST' && !hasKey) {",
  "    pm.request.headers.upsert({ key: 'Idempotency-Key', value: require('uuid').v4() });",
  '  }',
  '})();',
];

interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  example?: unknown;
  examples?: unknown[];
  default?: unknown;
  format?: string;
  minimum?: number;
  minItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  description?: string;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}

type Document = {
  info: { title: string; version: string; description?: string };
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
};

/** A small, valid-looking value for a schema: its example, else its first choice, else a placeholder of its type. */
function sample(schema: Schema, doc: Document, depth = 0): unknown {
  if (schema.$ref) return sample(doc.components?.schemas?.[schema.$ref.split('/').at(-1)!] ?? {}, doc, depth);
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const choice = schema.anyOf ?? schema.oneOf;
  if (choice) return sample(choice.find((s) => s.type !== 'null') ?? choice[0]!, doc, depth);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s) => sample(s, doc, depth) as object));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      if (depth > 4) return {};
      const required = new Set(schema.required ?? []);
      return Object.fromEntries(
        Object.entries(schema.properties ?? {})
          .filter(([name]) => required.has(name))
          .map(([name, s]) => [name, sample(s, doc, depth + 1)]),
      );
    }
    case 'array':
      return schema.minItems && schema.items ? [sample(schema.items, doc, depth + 1)] : [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    case 'string':
      return schema.format === 'date-time' ? '2026-01-01T00:00:00.000Z' : schema.format === 'uuid' ? '00000000-0000-4000-8000-000000000000' : '';
    default:
      return null;
  }
}

const text = (...parts: (string | undefined)[]) => parts.filter(Boolean).join('\n\n');

function requestItem(path: string, method: string, op: Operation, doc: Document) {
  const params = op.parameters ?? [];
  const segments = path.split('/').filter(Boolean).map((s) => s.replace(/^\{(.+)\}$/, ':$1'));
  const query = params
    .filter((p) => p.in === 'query')
    .map((p) => ({ key: p.name, value: String(p.schema ? (sample(p.schema, doc) ?? '') : ''), description: p.description ?? '', disabled: true }));
  const body = op.requestBody?.content['application/json']?.schema;
  return {
    name: op.summary.split(': ')[0],
    request: {
      method: method.toUpperCase(),
      description: text(op.summary, op.description, `operationId: \`${op.operationId}\``),
      header: body ? [{ key: 'Content-Type', value: 'application/json' }] : [],
      url: {
        raw: `{{baseUrl}}/${segments.join('/')}`,
        host: ['{{baseUrl}}'],
        path: segments,
        ...(query.length ? { query } : {}),
        ...(params.some((p) => p.in === 'path')
          ? { variable: params.filter((p) => p.in === 'path').map((p) => ({ key: p.name, value: '', description: p.description ?? `The ${p.name} (required)` })) }
          : {}),
      },
      ...(body ? { body: { mode: 'raw', raw: JSON.stringify(sample(body, doc), null, 2), options: { raw: { language: 'json' } } } } : {}),
    },
  };
}

/** The collection, as committed. */
export function postmanCollection(document = openApiDocument() as unknown as Document) {
  const folders = document.tags.map((tag) => ({ name: tag.name, description: tag.description, item: [] as ReturnType<typeof requestItem>[] }));
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const folder = folders.find((f) => f.name === op.tags[0]);
      if (!folder) throw new Error(`${op.operationId}: its tag ${op.tags[0]} is not among the document's tags`);
      folder.item.push(requestItem(path, method, op, document));
    }
  }
  return {
    info: {
      name: document.info.title,
      description: text(
        document.info.description,
        `Generated from the OpenAPI document (version ${document.info.version}) by \`npm run postman\`. ` +
          'Set the collection variables baseUrl, keyId and secret (examples/postman/README.md); ' +
          'the collection-level pre-request script signs every request.',
      ),
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    variable: [
      { key: 'baseUrl', value: 'http://127.0.0.1:8080', type: 'string' },
      { key: 'keyId', value: '', type: 'string' },
      { key: 'secret', value: '', type: 'string' },
    ],
    event: [{ listen: 'prerequest', script: { type: 'text/javascript', exec: SIGNING_SCRIPT } }],
    item: folders.filter((f) => f.item.length > 0),
  };
}

export const postmanCollectionJson = (): string => `${JSON.stringify(postmanCollection(), null, 2)}\n`;

if (isEntrypoint(import.meta.url)) {
  mkdirSync(dirname(COLLECTION_FILE), { recursive: true });
  writeFileSync(COLLECTION_FILE, postmanCollectionJson());
  process.stdout.write('examples/postman/wallet-api.postman_collection.json written\n');
}

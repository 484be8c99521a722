// `npm run openapi`: writes docs/openapi.json (the OpenAPI 3.1 document, as
// GET /v2/openapi.json serves it), docs/errors.md (the error catalogue) and
// the Postman collection generated from the document (examples/postman).
// All three are generated; a test fails when a committed file differs.
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { errorsMarkdown } from '../src/adapters/http/errors-doc.js';
import { openApiJson } from '../src/adapters/http/openapi.js';
import { COLLECTION_FILE, postmanCollectionJson } from './postman.js';

const docs = resolve(import.meta.dirname, '..', 'docs');
writeFileSync(join(docs, 'openapi.json'), openApiJson());
writeFileSync(join(docs, 'errors.md'), errorsMarkdown());
writeFileSync(COLLECTION_FILE, postmanCollectionJson());
process.stdout.write('docs/openapi.json, docs/errors.md and examples/postman/wallet-api.postman_collection.json written\n');

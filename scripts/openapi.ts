// `npm run openapi`: writes docs/openapi.json (the OpenAPI 3.1 document, as
// GET /v2/openapi.json serves it) and docs/errors.md (the error catalogue).
// Both are generated; a test fails when the committed files differ.
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { errorsMarkdown } from '../src/adapters/http/errors-doc.js';
import { openApiJson } from '../src/adapters/http/openapi.js';

const docs = resolve(import.meta.dirname, '..', 'docs');
writeFileSync(join(docs, 'openapi.json'), openApiJson());
writeFileSync(join(docs, 'errors.md'), errorsMarkdown());
process.stdout.write('docs/openapi.json and docs/errors.md written\n');

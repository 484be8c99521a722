// `npm run api -- GET /v2/balances`: one signed request from the terminal
// (src/adapters/devtools/api-request.ts; docs/quickstart.md).
import { processIo, runApiRequest } from '../adapters/devtools/api-request.js';

process.exitCode = await runApiRequest(process.argv.slice(2), processIo());

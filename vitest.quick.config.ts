// `npm run test:quick`: the inner loop (issue 35). The domain and application
// unit tests and the integration files that start no chain (no anvil, no TRON
// stand-in, no scripted node): found by what each file imports, so a new file
// joins on its own. Same PostgreSQL set-up, same assertions as `npm test`,
// which still runs everything.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

const CHAIN = /support\/(anvil-chain|tron-chain|scripted-chain|rpc-proxy)|local-chains|startAnvil|startTron/;
const dir = join(import.meta.dirname, 'test/integration');
const withoutChain = readdirSync(dir)
  .filter((f) => f.endsWith('.test.ts') && !CHAIN.test(readFileSync(join(dir, f), 'utf8')))
  .map((f) => `test/integration/${f}`);

// The ledger's model test runs 2,000 generated runs here (npm test: 10,000, LEDGER_MODEL_RUNS overrides both).
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['test/unit/**/*.test.ts', ...withoutChain], env: { LEDGER_MODEL_RUNS: process.env.LEDGER_MODEL_RUNS ?? '2000' } },
});

import { defineConfig } from 'vitest/config';

// `npm run test:chaos`: the chaos suite alone (test/chaos), on its own
// PostgreSQL and local chains, which it stops and breaks on purpose.
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    setupFiles: ['test/support/setup.ts'],
    pool: 'forks',
    testTimeout: 900_000,
    hookTimeout: 300_000,
    teardownTimeout: 60_000,
  },
});

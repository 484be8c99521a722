import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The chaos suite runs on its own (npm run test:chaos, vitest.chaos.config.ts).
    exclude: [...configDefaults.exclude, 'test/chaos/**'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    pool: 'forks',
    // One process runs the files one after another with the libraries loaded once: each file builds its own
    // app, container and metrics registry, so nothing a file relies on is shared. Isolating every file cost
    // about 3.5 s of start-up apiece (npm test: 22.6 minutes isolated, about 19 not).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
  },
});

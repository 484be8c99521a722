import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirst from './test/support/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The chaos suite runs on its own (npm run test:chaos, vitest.chaos.config.ts).
    exclude: [...configDefaults.exclude, 'test/chaos/**'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    // A person sees the files done of the total and the time elapsed (test/support/progress-reporter.ts).
    reporters: ['default', './test/support/progress-reporter.ts'],
    pool: 'forks',
    // Three files at a time, the long ones first (test/support/sequencer.ts): most of an e2e file's time is
    // spent waiting on blocks and processes, so three share this 2-core machine well (npm test: about 20
    // minutes one at a time).
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
    // One process runs the files one after another with the libraries loaded once: each file builds its own
    // app, container and metrics registry, so nothing a file relies on is shared. Isolating every file cost
    // about 3.5 s of start-up apiece (npm test: 22.6 minutes isolated, about 19 not).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
  },
});

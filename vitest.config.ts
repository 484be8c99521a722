import { availableParallelism } from 'node:os';
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
    // As many files at a time as there are cores, at most three, the long ones first (test/support/sequencer.ts).
    // Three on 2 cores took npm test from about 20 minutes to 12 on a quiet machine, but on a slower one (the
    // same machine an afternoon later, a third of its speed) three npm-start sandboxes at once (load average
    // 12) pushed process starts and chain waits past their time-outs; two there, three from 3 cores up.
    maxWorkers: Math.min(3, availableParallelism()),
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

// The order files start in (issue 35): the longest first, so that with
// several workers the run does not end on one slow file alone. A file's
// length is its time in the last run on this machine (vitest's results
// cache) when known; a fresh clone has none, so it is then guessed from where
// the file lives (e2e and browser files start sandboxes and chains,
// integration files a database, unit files nothing), larger files first.
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Guessed seconds by tier, for files the cache does not know. */
const GUESS: [string, number][] = [
  ['/test/e2e/', 60],
  ['/test/browser/', 20],
  ['/test/integration/', 5],
  ['/test/unit/', 1],
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const length = (f: TestSpecification): number => {
      const known = this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`);
      if (known && known.duration > 0) return known.duration / 1000;
      const guess = GUESS.find(([dir]) => f.moduleId.includes(dir))?.[1] ?? 1;
      return guess + statSync(f.moduleId).size / 1e6;
    };
    const lengths = new Map(files.map((f) => [f.moduleId, length(f)]));
    return [...files].sort((a, b) => lengths.get(b.moduleId)! - lengths.get(a.moduleId)!);
  }
}

// The order files start in (issue 35): the long ones first, so that with
// several workers the last minutes are not one slow file alone. A fresh clone
// has no timing cache, so the order comes from where a file lives (e2e and
// browser files start sandboxes and chains, integration files a database,
// unit files nothing) and, within a tier, from its size; the same on every
// machine.
import { statSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const TIERS = ['/test/e2e/', '/test/browser/', '/test/integration/', '/test/unit/'];

const tier = (s: TestSpecification): number => {
  const i = TIERS.findIndex((t) => s.moduleId.includes(t));
  return i === -1 ? TIERS.length : i;
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const size = new Map(files.map((f) => [f.moduleId, statSync(f.moduleId).size]));
    return [...files].sort((a, b) => tier(a) - tier(b) || size.get(b.moduleId)! - size.get(a.moduleId)!);
  }
}

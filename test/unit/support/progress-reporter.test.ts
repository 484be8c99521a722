// The progress line of `npm test` (test/support/progress-reporter.ts): files
// done of the total, elapsed time, each file's result and time, the slowest.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TestModule, TestSpecification } from 'vitest/node';
import ProgressReporter, { seconds } from '../../support/progress-reporter.js';

const moduleOf = (file: string, ok: boolean, duration: number) =>
  ({ relativeModuleId: file, ok: () => ok, diagnostic: () => ({ duration }) }) as unknown as TestModule;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('progress reporter', () => {
  it('writes durations as a person reads them, never 60 seconds in a minute', () => {
    expect([seconds(1234), seconds(59_900), seconds(119_600), seconds(179_500), seconds(754_000)]).toEqual(['1.2s', '59.9s', '2m00s', '3m00s', '12m34s']);
  });

  it('prints files done of the total, each file’s result, the failures so far and the slowest at the end', () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk).trimEnd());
      return true;
    });
    const r = new ProgressReporter();
    r.onInit();
    r.onTestRunStart([{ moduleId: '/a.test.ts' }, { moduleId: '/b.test.ts' }, { moduleId: '/a.test.ts' }] as unknown as TestSpecification[]);
    r.onTestModuleEnd(moduleOf('test/a.test.ts', true, 1500));
    r.onTestModuleEnd(moduleOf('test/b.test.ts', false, 90_000));
    r.onTestRunEnd();
    expect(lines[1]).toMatch(/^\[progress\] 2 files to run/);
    expect(lines[2]).toMatch(/^\[progress\] 1\/2 files, [\d.]+s elapsed: ok {3}test\/a\.test\.ts \(1\.5s\)$/);
    expect(lines[3]).toMatch(/^\[progress\] 2\/2 files, 1 failed, [\d.]+s elapsed: FAIL test\/b\.test\.ts \(1m30s\)$/);
    expect(lines[4]).toBe('[progress] slowest: test/b.test.ts 1m30s, test/a.test.ts 1.5s');
    expect(lines[5]).toMatch(/^\[progress\] 2\/2 files in [\d.]+s, 1 failed$/);
  });
});

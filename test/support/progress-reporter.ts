// A progress line for a person watching `npm test` (issue 35): one line when
// the run starts, one per file as it ends (files done of total, elapsed, the
// file's own time and its result), and a last line with the slowest files.
// It writes to stderr, beside whichever reporters print the results.
import type { Reporter, TestModule, TestSpecification } from 'vitest/node';

export const seconds = (ms: number): string => {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
};

export default class ProgressReporter implements Reporter {
  private started = performance.now();
  private total = 0;
  private done = 0;
  private failed = 0;
  private readonly times: { file: string; ms: number }[] = [];

  private say(line: string): void {
    process.stderr.write(`${line}\n`);
  }

  onInit(): void {
    this.started = performance.now();
    this.say('[progress] preparing: PostgreSQL and its migrated template (about half a minute on a fresh machine)');
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.total = new Set(specifications.map((s) => s.moduleId)).size;
    this.say(`[progress] ${this.total} files to run, ${seconds(performance.now() - this.started)} since start`);
  }

  onTestModuleEnd(module: TestModule): void {
    this.done++;
    const ok = module.ok();
    if (!ok) this.failed++;
    const ms = module.diagnostic().duration;
    const file = module.relativeModuleId;
    this.times.push({ file, ms });
    const failures = this.failed > 0 ? `, ${this.failed} failed` : '';
    this.say(`[progress] ${this.done}/${this.total} files${failures}, ${seconds(performance.now() - this.started)} elapsed: ${ok ? 'ok  ' : 'FAIL'} ${file} (${seconds(ms)})`);
  }

  onTestRunEnd(): void {
    const slowest = [...this.times].sort((a, b) => b.ms - a.ms).slice(0, 5);
    if (slowest.length > 0) this.say(`[progress] slowest: ${slowest.map((t) => `${t.file} ${seconds(t.ms)}`).join(', ')}`);
    this.say(`[progress] ${this.done}/${this.total} files in ${seconds(performance.now() - this.started)}${this.failed > 0 ? `, ${this.failed} failed` : ''}`);
  }
}

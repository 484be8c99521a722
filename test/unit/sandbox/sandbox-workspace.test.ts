// The sandbox's workspace file: made once, owner-only, never over anything already at its path.
import { mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureSandboxWorkspace } from '../../../src/bootstrap/sandbox-workspace.js';

/** A stand-in for `ops workspace create --json`: prints a workspace and counts its runs. */
function fakeOps(dir: string): { entry: string; runs: () => number } {
  const entry = join(dir, 'fake-ops.mjs');
  const count = join(dir, 'runs');
  writeFileSync(count, '');
  writeFileSync(
    entry,
    `import { appendFileSync } from 'node:fs'; appendFileSync(${JSON.stringify(count)}, 'x'); process.stdout.write(JSON.stringify({ workspace_id: 'w-1', test_key: { key_id: 'sk_test_1', secret: 's1' }, live_key: { key_id: 'sk_live_1', secret: 's2' } }));`,
  );
  return { entry, runs: () => readFileSync(count, 'utf8').length };
}

describe('the sandbox workspace file', () => {
  it('is made once, 0600, and a second start keeps it without making another workspace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wallet-ws-'));
    const ops = fakeOps(dir);
    const first = await ensureSandboxWorkspace({ dataDir: dir, opsEntry: ops.entry, execArgv: [], env: process.env });
    expect(first).toEqual({ file: join(dir, 'workspace.json'), workspaceId: 'w-1', created: true });
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(first.file, 'utf8')).test_key.secret).toBe('s1');
    expect(await ensureSandboxWorkspace({ dataDir: dir, opsEntry: ops.entry, execArgv: [], env: process.env })).toMatchObject({ workspaceId: 'w-1', created: false });
    expect(ops.runs()).toBe(1);
  });

  it('makes no workspace over a dangling link or an unreadable file, and says what to move', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wallet-ws-'));
    const ops = fakeOps(dir);
    symlinkSync(join(dir, 'nowhere.json'), join(dir, 'workspace.json'));
    await expect(ensureSandboxWorkspace({ dataDir: dir, opsEntry: ops.entry, execArgv: [], env: process.env })).rejects.toThrow(/cannot be read as the workspace file .*move it away/);
    const other = mkdtempSync(join(tmpdir(), 'wallet-ws-'));
    writeFileSync(join(other, 'workspace.json'), 'not json');
    await expect(ensureSandboxWorkspace({ dataDir: other, opsEntry: ops.entry, execArgv: [], env: process.env })).rejects.toThrow(/not JSON/);
    expect(ops.runs()).toBe(0);
  });
});

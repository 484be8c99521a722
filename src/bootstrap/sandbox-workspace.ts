// The sandbox's own workspace: made by `npm start` the first time, so that a
// newcomer's first signed request needs no setup. Its keys (a test and a
// live one, every scope) are written once to DATA_DIR/workspace.json, 0600,
// never printed; `npm run api` and `npm run listen` read them from there.
// A DATA_DIR that already holds a workspace file (this one, or the
// acme.json of the earlier banner's command) keeps it.
import { execFile } from 'node:child_process';
import { closeSync, lstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { workspaceFile } from '../adapters/devtools/credentials.js';

export interface SandboxWorkspace {
  file: string;
  workspaceId: string;
  created: boolean;
}

/** The workspace file of DATA_DIR, if there is anything at its path (a dangling link too: nothing is made over it). */
export function existingWorkspaceFile(dataDir: string): string | null {
  const file = workspaceFile(dataDir);
  return lstatSync(file, { throwIfNoEntry: false }) ? file : null;
}

export async function ensureSandboxWorkspace(opts: { dataDir: string; opsEntry: string; execArgv: string[]; env: NodeJS.ProcessEnv }): Promise<SandboxWorkspace> {
  const existing = existingWorkspaceFile(opts.dataDir);
  if (existing) {
    let id: unknown;
    try {
      id = (JSON.parse(readFileSync(existing, 'utf8')) as { workspace_id?: unknown }).workspace_id;
    } catch (err) {
      throw new Error(`${existing} cannot be read as the workspace file (${(err as NodeJS.ErrnoException).code ?? 'not JSON'}); move it away to have a new workspace made`, { cause: err });
    }
    if (typeof id !== 'string') throw new Error(`${existing} names no workspace_id; move it away to have a new workspace made`);
    return { file: existing, workspaceId: id, created: false };
  }
  const { stdout } = await promisify(execFile)(process.execPath, [...opts.execArgv, opts.opsEntry, 'workspace', 'create', '--name', 'Sandbox', '--json'], {
    env: opts.env,
    timeout: 60_000,
  });
  const made = JSON.parse(stdout) as { workspace_id: string };
  const file = workspaceFile(opts.dataDir);
  // Created here and only here, owner-only: the secrets are shown nowhere else.
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(made, null, 2)}\n`);
  } finally {
    closeSync(fd);
  }
  return { file, workspaceId: made.workspace_id, created: true };
}

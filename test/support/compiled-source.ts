// The service's processes in the suite start from JavaScript transpiled once
// per run (issue 35), not through tsx's loader: an `ops` command starts in
// about 0.8 s instead of 1.3 s (tsx resolves and transforms every module in
// a thread of its own, and most tests spawn several). The transpiler is the
// one tsx runs (esbuild, the same tsconfig), file by file, nothing bundled,
// so a process runs the same modules in the same order; `npm start`, `npm run
// ops` and the README's commands still run through tsx in the e2e files that
// test them as a person types them (test/e2e/quickstart.test.ts).
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '../..');
/** Under the repository (node_modules/.cache), so that packages and package.json resolve as from src/. */
const CACHE = join(ROOT, 'node_modules/.cache/wallet-test-js');
/** Where a run's transpiled tree is; set by the global set-up, inherited by the test processes. */
export const COMPILED_ENV = 'WALLET_TEST_COMPILED_DIR';

const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => join(ROOT, dir, f));

/** Transpiles src/ and migrations/ into a directory of this run's own; returns it. Trees of runs no longer alive are removed. */
export async function transpileSource(): Promise<string> {
  if (existsSync(CACHE)) {
    for (const pid of readdirSync(CACHE)) if (!alive(Number(pid))) rmSync(join(CACHE, pid), { recursive: true, force: true });
  }
  const outdir = join(CACHE, String(process.pid));
  await build({
    entryPoints: [...sources('src'), ...sources('migrations')],
    outdir,
    outbase: ROOT,
    format: 'esm',
    platform: 'node',
    target: 'node20.19', // engines; keeps the JSON import's attribute
    tsconfig: join(ROOT, 'tsconfig.json'),
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  // What the modules import besides code (the sandbox token's compiled artifact, JSON) sits beside them, as in src/.
  for (const dir of ['src', 'migrations']) {
    cpSync(join(ROOT, dir), join(outdir, dir), { recursive: true, filter: (from) => !from.endsWith('.ts') });
  }
  return outdir;
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The node arguments that run an entrypoint of src/: its transpiled file when the run has a tree (stack traces
 * name the .ts lines through the inline source maps), else through tsx. Anything outside src/ (examples,
 * scripts) runs through tsx.
 */
export function entryArgs(entry: string): string[] {
  const dir = process.env[COMPILED_ENV];
  const rel = relative(ROOT, resolve(ROOT, entry));
  if (dir && rel.startsWith('src/') && rel.endsWith('.ts')) return ['--enable-source-maps', join(dir, rel.replace(/\.ts$/, '.js'))];
  return ['--import', 'tsx', entry];
}

/** Removes this run's tree. */
export function removeTranspiled(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

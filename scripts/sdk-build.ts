// `npm run sdk:build`: the client SDK alone, as the package @wallet-service/sdk
// in dist/sdk, in a few seconds and without the service's build. src/sdk is
// compiled twice, to ES modules (dist/sdk/esm, sdk/tsconfig.esm.json) and to
// CommonJS (dist/sdk/cjs, sdk/tsconfig.cjs.json), each with its .d.ts; the
// package's manifest is sdk/package.json and its README src/sdk/README.md,
// with links into the repository turned into plain text (they lead nowhere
// inside the package). dist/sdk is then installable as it is, and
// scripts/pack-sdk.ts packs it.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const root = resolve(import.meta.dirname, '..');
export const SDK_PACKAGE_DIR = join(root, 'dist/sdk');

/** Repository links of the README as text that names the file, e.g. "[authentication] (docs/api.md in the wallet-service repository)". */
export function readmeForPackage(markdown: string): string {
  return markdown.replace(/\[([^\]]+)\]\((?![a-z]+:|#)([^)]+)\)/gi, (_m, text: string, target: string) => {
    const file = target.replace(/^(\.\.\/)+/, '');
    return file.startsWith(text.replace(/`/g, '')) ? `${text} (in the wallet-service repository)` : `${text} (${file} in the wallet-service repository)`;
  });
}

async function compile(tsconfig: string): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    await promisify(execFile)(process.execPath, [tsc, '-p', join(root, tsconfig)], { cwd: root });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`tsc -p ${tsconfig} failed:\n${stdout ?? ''}${stderr ?? ''}`, { cause: err });
  }
}

/** Builds dist/sdk from scratch and returns its path. */
export async function buildSdk(): Promise<string> {
  rmSync(SDK_PACKAGE_DIR, { recursive: true, force: true });
  await Promise.all([compile('sdk/tsconfig.esm.json'), compile('sdk/tsconfig.cjs.json')]);
  // The manifest says "type": "module"; this nested one makes Node load cjs/*.js as CommonJS.
  writeFileSync(join(SDK_PACKAGE_DIR, 'cjs/package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
  copyFileSync(join(root, 'sdk/package.json'), join(SDK_PACKAGE_DIR, 'package.json'));
  writeFileSync(join(SDK_PACKAGE_DIR, 'README.md'), readmeForPackage(readFileSync(join(root, 'src/sdk/README.md'), 'utf8')));
  return SDK_PACKAGE_DIR;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  mkdirSync(join(root, 'dist'), { recursive: true });
  process.stdout.write(`${await buildSdk()}\n`);
}

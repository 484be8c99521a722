// `npm run sdk:pack`: the client SDK as a tarball another project installs,
// with no dependencies: dist/wallet-service-sdk-<version>.tgz holds a package
// named `wallet-service` that exports `./sdk` only, so the import line is the
// same inside this repository and outside it:
//   npm install /path/to/dist/wallet-service-sdk-0.1.0.tgz
//   import { WalletClient, verifyWebhook } from 'wallet-service/sdk';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const built = join(root, 'dist/src/sdk');
if (!existsSync(join(built, 'index.js'))) {
  process.stderr.write('dist/src/sdk is missing: run npm run build first (npm run sdk:pack does)\n');
  process.exit(1);
}
const service = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; engines: unknown; description: string };
const stage = mkdtempSync(join(tmpdir(), 'wallet-sdk-'));
try {
  cpSync(built, join(stage, 'sdk'), { recursive: true, filter: (src) => !src.endsWith('.map') });
  // Links into the repository lead nowhere inside the tarball: keep their text, name the file.
  const readme = readFileSync(join(root, 'src/sdk/README.md'), 'utf8').replace(
    /\[([^\]]+)\]\((?![a-z]+:|#)([^)]+)\)/gi,
    (_m, text: string, target: string) => {
      const file = target.replace(/^(\.\.\/)+/, '');
      return file.startsWith(text.replace(/`/g, '')) ? `${text} (in the wallet-service repository)` : `${text} (${file} in the wallet-service repository)`;
    },
  );
  writeFileSync(join(stage, 'README.md'), readme);
  writeFileSync(
    join(stage, 'package.json'),
    `${JSON.stringify(
      {
        name: 'wallet-service',
        version: service.version,
        description: 'Client SDK of the wallet service: signed requests, retries, typed errors, webhook verification',
        type: 'module',
        engines: service.engines,
        exports: { './sdk': { types: './sdk/index.d.ts', import: './sdk/index.js' }, './package.json': './package.json' },
        files: ['sdk', 'README.md'],
      },
      null,
      2,
    )}\n`,
  );
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', stage], { cwd: stage, encoding: 'utf8' }).trim().split('\n').pop()!;
  const target = join(root, 'dist', `wallet-service-sdk-${service.version}.tgz`);
  renameSync(join(stage, name), target);
  process.stdout.write(`${target}\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}

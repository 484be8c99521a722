// `npm run sdk:pack`: builds the client SDK alone (scripts/sdk-build.ts, not
// the service) and packs it as dist/wallet-service-sdk-<version>.tgz, the
// package @wallet-service/sdk with no dependencies, for ES modules and
// CommonJS alike:
//   npm install /path/to/dist/wallet-service-sdk-1.0.0.tgz
//   import { WalletClient, verifyWebhook } from '@wallet-service/sdk';
//   const { WalletClient, verifyWebhook } = require('@wallet-service/sdk');
// Prints the tarball's path.
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { buildSdk } from './sdk-build.js';

const root = resolve(import.meta.dirname, '..');
const packageDir = await buildSdk();
const out = execFileSync('npm', ['pack', '--json', '--pack-destination', join(root, 'dist'), packageDir], { cwd: root, encoding: 'utf8' });
const [{ filename }] = JSON.parse(out) as [{ filename: string }];
process.stdout.write(`${join(root, 'dist', filename)}\n`);

// Compiles the sandbox token with the npm solc package (offline) into the
// committed artifact src/adapters/sandbox/contracts/sandbox-token-artifact.json,
// so that `npm start` never compiles. Run after editing SandboxToken.sol:
//   node --import tsx scripts/compile-sandbox-token.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const solc = require('solc') as { compile(input: string): string; version(): string };
const dir = 'src/adapters/sandbox/contracts';
const source = readFileSync(`${dir}/SandboxToken.sol`, 'utf8');
const input = {
  language: 'Solidity',
  sources: { 'SandboxToken.sol': { content: source } },
  settings: {
    evmVersion: 'paris', // no PUSH0: runs on any local node and on the TRON stand-in
    optimizer: { enabled: true, runs: 200 },
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
};
const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
if (errors.length) {
  for (const e of errors) process.stderr.write(e.formattedMessage);
  process.exit(1);
}
const c = out.contracts['SandboxToken.sol']!['SandboxToken']!;
const artifact = { contractName: 'SandboxToken', compiler: `solc ${solc.version()}`, evmVersion: 'paris', abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
writeFileSync(`${dir}/sandbox-token-artifact.json`, `${JSON.stringify(artifact, null, 2)}\n`);
process.stdout.write(`wrote ${dir}/sandbox-token-artifact.json (${c.evm.bytecode.object.length / 2} bytes)\n`);

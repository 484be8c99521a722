// The command line of `npm run sandbox -- send | balance | address` (src/bootstrap/sandbox.ts):
// its help, and every check of its flags, done before any file or node is
// touched. A refusal is one line naming the problem, then the command's usage.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { isDomainError } from '../../domain/errors.js';
import { Amount } from '../../domain/money/amount.js';
import { ASSETS, baseChainOf, isAssetOnChain, type Asset, type BaseChain, type Network } from '../../domain/money/networks.js';
import { ChainAddressCodec } from '../chains/address-codec.js';
import { networkFlag, networkSpellings } from '../cli/network-flag.js';

type SandboxCommand = 'send' | 'balance' | 'address';
const COMMANDS: readonly SandboxCommand[] = ['send', 'balance', 'address'];

const CHAIN_HELP = networkSpellings('test', 'test');
const FLAGS: Record<SandboxCommand, [flag: string, required: boolean, text: string][]> = {
  send: [
    ['--chain CHAIN', true, CHAIN_HELP],
    ['--asset ASSET', true, `an asset of the chain: ${ASSETS.join(', ')}`],
    ['--to ADDRESS', true, 'the recipient, e.g. a deposit address (EIP-55 0x… on ETH and BSC, base58 T… on TRON)'],
    ['--amount AMOUNT', true, 'a decimal amount of the asset, e.g. 25 or 0.5'],
    ['--from outside|cold', false, 'who sends: the outside account (the default; it mints the tokens it sends) or cold storage (what it holds)'],
  ],
  balance: [
    ['--chain CHAIN', true, CHAIN_HELP],
    ['--asset ASSET', true, `an asset of the chain: ${ASSETS.join(', ')}`],
    ['--address ADDRESS', false, 'any address of the chain'],
    ['--of outside|cold', false, 'the outside account (the default) or cold storage; not with --address'],
  ],
  address: [
    ['--chain CHAIN', true, CHAIN_HELP],
    ['--of outside|cold', false, 'the outside account (the default) or cold storage'],
  ],
};
const SUMMARY: Record<SandboxCommand, string> = {
  send: "A real transfer on the running sandbox's local chains, e.g. a deposit to try by hand",
  balance: 'What an address holds, read from the local node',
  address: "The address of the sandbox's outside account (or cold storage): a destination no wallet of the service watches, e.g. for a first withdrawal",
};
const every = ['Every command:', '  --json      the result as one JSON object on stdout', '  -h, --help  this help'].join('\n');

const synopsis = (c: SandboxCommand) => `npm run sandbox -- ${c} ${FLAGS[c].map(([f, required]) => (required ? f : `[${f}]`)).join(' ')} [--json]`;

/** One command's usage: its line, what it does and its flags. */
export function sandboxUsage(command: SandboxCommand): string {
  const width = Math.max(...FLAGS[command].map(([f]) => f.length));
  return [
    `Usage: ${synopsis(command)}`,
    '',
    SUMMARY[command],
    '',
    'Flags:',
    ...FLAGS[command].map(([f, required, text]) => `  ${f.padEnd(width)}  ${required ? 'required' : 'optional'}  ${text}`),
    '',
    every,
  ].join('\n');
}

/** Both commands' lines. */
export const SANDBOX_USAGE = [
  `Usage: ${synopsis('send')}`,
  `       ${synopsis('balance')}`,
  `       ${synopsis('address')}`,
  '',
  'npm run sandbox -- <command> --help shows what each flag takes. DATA_DIR names the running sandbox (.data by default).',
].join('\n');

export type SandboxCommandLine =
  | { kind: 'help'; text: string }
  | { kind: 'refused'; message: string; usage: string }
  | {
      kind: 'run';
      command: SandboxCommand;
      chain: BaseChain;
      network: Network;
      asset: Asset;
      /** The recipient of a send, or the address whose balance is read, in the chain's normal form. */
      address?: string;
      amount: Amount;
      /** Who sends, or whose balance is read when no address is given. */
      whose: 'outside' | 'cold';
      json: boolean;
    };

const address = z.string().min(1).max(128);
const whose = z.enum(['outside', 'cold']);
const SCHEMA = {
  send: z.strictObject({ chain: networkFlag('test', 'test'), asset: z.enum(ASSETS), to: address, amount: z.string().min(1).max(64), from: whose.optional(), json: z.boolean().optional() }),
  balance: z
    .strictObject({ chain: networkFlag('test', 'test'), asset: z.enum(ASSETS), address: address.optional(), of: whose.optional(), json: z.boolean().optional() })
    .refine((v) => v.address === undefined || v.of === undefined, { path: ['of'], message: 'give --address or --of, not both' }),
  address: z.strictObject({ chain: networkFlag('test', 'test'), of: whose.optional(), json: z.boolean().optional() }),
};

const asksHelp = (a: string) => a === '--help' || a === '-h';

/** Reads `send …` or `balance …`: help, a refusal, or what to do. */
export function parseSandboxCommandLine(argv: string[]): SandboxCommandLine {
  const [first, ...rest] = argv;
  const isCommand = (w: string | undefined): w is SandboxCommand => (COMMANDS as readonly (string | undefined)[]).includes(w);
  const command = isCommand(first) ? first : undefined;
  if (first === undefined || asksHelp(first) || first === 'help') {
    const named = first === 'help' && isCommand(rest[0]) ? rest[0] : undefined;
    return { kind: 'help', text: named ? sandboxUsage(named) : SANDBOX_USAGE };
  }
  if (!command) return { kind: 'refused', message: `unknown command "${first}": send, balance or address`, usage: SANDBOX_USAGE };
  if (rest.some(asksHelp)) return { kind: 'help', text: sandboxUsage(command) };
  const refuse = (message: string): SandboxCommandLine => ({ kind: 'refused', message, usage: sandboxUsage(command) });
  let values: Record<string, unknown>;
  try {
    const text = { type: 'string' } as const;
    const own: Record<string, { type: 'string' }> =
      command === 'send' ? { asset: text, to: text, amount: text, from: text } : command === 'balance' ? { asset: text, address: text, of: text } : { of: text };
    const options = { chain: text, json: { type: 'boolean' as const }, ...own };
    ({ values } = parseArgs({ args: rest, options, strict: true }));
  } catch (err) {
    return refuse((err as Error).message.split(/(?<=\.) /)[0]!);
  }
  const input = SCHEMA[command].safeParse(values);
  if (!input.success) {
    const issue = input.error.issues[0]!;
    const flag = String(issue.path[0] ?? '');
    return refuse(values[flag] === undefined && flag ? `--${flag} is required` : `--${flag}: ${issue.message}`);
  }
  const v = input.data as { chain: Network; asset?: Asset; to?: string; address?: string; amount?: string; from?: 'outside' | 'cold'; of?: 'outside' | 'cold'; json?: boolean };
  const chain = baseChainOf(v.chain);
  if (command === 'address' || v.asset === undefined) {
    // No asset is read or sent: any of the chain's stands in.
    const any = ASSETS.find((a) => isAssetOnChain(chain, a))!;
    return { kind: 'run', command, chain, network: v.chain, asset: any, amount: Amount.zero(any), whose: v.of ?? 'outside', json: v.json === true };
  }
  if (!isAssetOnChain(chain, v.asset)) return refuse(`--asset: ${v.asset} is not an asset of ${chain}`);
  const given = v.to ?? v.address;
  const normal = given === undefined ? undefined : new ChainAddressCodec().normalize(chain, given);
  if (normal === null) return refuse(`--${command === 'send' ? 'to' : 'address'}: not an address of ${chain} (${chain === 'TRON' ? 'base58, T…' : 'EIP-55 checksummed 0x…'})`);
  let amount = Amount.zero(v.asset);
  if (command === 'send') {
    try {
      amount = Amount.parse(v.amount, v.asset);
    } catch (err) {
      if (!isDomainError(err)) throw err;
      return refuse(`--${err.message}`);
    }
  }
  return { kind: 'run', command, chain, network: v.chain, asset: v.asset, address: normal, amount, whose: v.from ?? v.of ?? 'outside', json: v.json === true };
}

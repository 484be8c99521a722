import { describe, expect, it } from 'vitest';
import type { OpsMode } from '../../../src/adapters/cli/command.js';
import { commandHelp } from '../../../src/adapters/cli/command-help.js';
import { OPS_COMMANDS } from '../../../src/adapters/cli/ops-commands.js';
import { helpFor, parseCommandLine } from '../../../src/adapters/cli/run-ops.js';

const TEST: OpsMode = { side: 'test' };
const LIVE: OpsMode = { side: 'live' };
const byName = (name: string) => OPS_COMMANDS.find((c) => c.path.join(' ') === name)!;

describe("every ops command's own help", () => {
  it('lists each of its flags, saying whether it is required', () => {
    for (const c of OPS_COMMANDS) {
      const help = commandHelp(c, TEST);
      expect(help, c.path.join(' ')).toMatch(new RegExp(`^Usage: npm run ops -- ${c.path.join(' ')}`));
      for (const flag of Object.keys(c.flags)) expect(help, `${c.path.join(' ')} --${flag}`).toMatch(new RegExp(`\\n {2}--${flag}\\b[^\\n]* (required|optional)\\b`));
      expect(helpFor(OPS_COMMANDS, [...c.path, '--help'], TEST)).toBe(help);
    }
  });

  it('reads required, optional and what a flag takes from the schema, per action of a command that has actions', () => {
    expect(commandHelp(byName('workspace create'), TEST)).toMatch(/\n {2}--name NAME {13}required\n {2}--contact-email E-MAIL {2}optional {2}an e-mail address\n/);
    const sweep = commandHelp(byName('sweep policy'), TEST);
    expect(sweep).toMatch(/^Usage: npm run ops -- sweep policy set --chain NETWORK --asset ASSET --minimum MINIMUM \[--interval-seconds INTERVAL_SECONDS\] \[--json\]\n {7}npm run ops -- sweep policy show \[--chain NETWORK\] \[--asset ASSET\] \[--json\]\n/);
    expect(sweep).toMatch(/Flags of sweep policy set:\n {2}--chain NETWORK +required {2}TRON, BSC, ETH \(the testnet here\) or a network/);
    expect(sweep).toMatch(/--interval-seconds INTERVAL_SECONDS +optional {2}must be a whole number of seconds/);
    expect(commandHelp(byName('key issue'), TEST)).toMatch(/--side live\|test +required {2}one of live, test/);
    expect(commandHelp(byName('chains check'), LIVE)).toMatch(/--chain NETWORK +optional {2}TRON, BSC, ETH \(the mainnet here\)/);
  });

  it("names only TRON's networks for the energy commands' --network, which take no other", () => {
    for (const c of OPS_COMMANDS.filter((o) => o.path[0] === 'energy' && 'network' in o.flags)) {
      for (const [mode, here] of [[TEST, 'testnet'], [LIVE, 'mainnet']] as const) {
        const help = commandHelp(c, mode);
        expect(help, c.path.join(' ')).toMatch(new RegExp(`--network NETWORK +(required|optional) {2}TRON \\(the ${here} here\\) or a network: TRON_MAINNET, TRON_TESTNET; any case\n`));
        expect(help, c.path.join(' ')).not.toMatch(/ETH|BSC/);
      }
    }
  });
});

describe('--chain in every ops command', () => {
  const chainCommands = OPS_COMMANDS.filter((c) => 'chain' in c.flags);
  /** The smallest command line the command accepts with `chain` as --chain. */
  const lineWith = (name: string, chain: string): string[] => {
    const id = '7eff53d2-1084-4895-8a2a-141b89678144';
    const rest: Record<string, string[]> = {
      'beneficiary add': ['--workspace', id, '--address', 'x'],
      'beneficiary remove': ['--workspace', id, '--address', 'x'],
      'deposit rescan': ['--txid', `0x${'ab'.repeat(32)}`],
      'deposit unexpected': ['list'],
      'sweep policy': ['set', '--asset', 'USDT_ETH', '--minimum', '5'],
      'treasury policy': ['cancel', '--asset', 'USDT_ETH'],
    };
    return [...name.split(' '), '--chain', chain, ...(rest[name] ?? [])];
  };

  it('takes ETH as the testnet outside production and the mainnet in production, a network as it is, any case', () => {
    expect(chainCommands.length).toBeGreaterThanOrEqual(12);
    for (const c of chainCommands) {
      const name = c.path.join(' ');
      const chainOf = (argv: string[], mode: OpsMode) => {
        const parsed = parseCommandLine(c, argv, mode);
        expect(parsed, `${argv.join(' ')}`).toMatchObject({ ok: true });
        return (parsed as { input: { chain: string } }).input.chain;
      };
      // Withdrawal security is a mainnet rule: a bare chain is its mainnet there, in every mode.
      expect(chainOf(lineWith(name, 'ETH'), TEST), name).toBe(name.startsWith('beneficiary') ? 'ETH_MAINNET' : 'ETH_TESTNET');
      expect(chainOf(lineWith(name, 'eth'), LIVE), name).toBe('ETH_MAINNET');
      expect(chainOf(lineWith(name, 'tron_testnet'), LIVE), name).toBe('TRON_TESTNET');
      expect(chainOf(lineWith(name, 'BSC_MAINNET'), TEST), name).toBe('BSC_MAINNET');
      const bad = parseCommandLine(c, lineWith(name, 'ETHER'), TEST);
      expect(bad, name).toMatchObject({ ok: false, message: expect.stringMatching(/^--chain: unknown network "ETHER": give TRON, BSC, ETH .* ETH_TESTNET; any case$/) });
    }
  });
});

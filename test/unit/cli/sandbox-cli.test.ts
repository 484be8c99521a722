import { describe, expect, it } from 'vitest';
import { SANDBOX_USAGE, parseSandboxCommandLine, sandboxUsage } from '../../../src/adapters/sandbox/sandbox-cli.js';

const to = '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35';

describe('the sandbox command line', () => {
  it('answers help for both commands, and each command its own with its flags', () => {
    for (const argv of [[], ['--help'], ['-h'], ['help']]) expect(parseSandboxCommandLine(argv)).toEqual({ kind: 'help', text: SANDBOX_USAGE });
    for (const argv of [['send', '--help'], ['send', '--chain', 'ETH', '-h'], ['help', 'send']]) expect(parseSandboxCommandLine(argv)).toEqual({ kind: 'help', text: sandboxUsage('send') });
    expect(sandboxUsage('send')).toMatch(/^Usage: npm run sandbox -- send --chain CHAIN --asset ASSET --to ADDRESS --amount AMOUNT \[--from outside\|cold\] \[--json\]\n/);
    expect(sandboxUsage('balance')).toMatch(/\n {2}--of outside\|cold +optional {2}/);
  });

  it('names the outside account (or cold storage) of a chain with address, which takes no asset', () => {
    expect(parseSandboxCommandLine(['address', '--chain', 'eth'])).toMatchObject({ kind: 'run', command: 'address', chain: 'ETH', network: 'ETH_TESTNET', whose: 'outside', json: false });
    expect(parseSandboxCommandLine(['address', '--chain', 'TRON', '--of', 'cold', '--json'])).toMatchObject({ kind: 'run', command: 'address', chain: 'TRON', whose: 'cold', json: true });
    expect(parseSandboxCommandLine(['address', '--chain', 'ETH', '--asset', 'USDT_ETH'])).toMatchObject({ kind: 'refused', message: "Unknown option '--asset'", usage: sandboxUsage('address') });
    expect(parseSandboxCommandLine(['address'])).toMatchObject({ kind: 'refused', message: '--chain is required' });
    expect(SANDBOX_USAGE).toContain('npm run sandbox -- address --chain CHAIN [--of outside|cold] [--json]');
  });

  it('takes ETH, eth or ETH_TESTNET for the local ETH chain, and refuses a mainnet naming what it takes', () => {
    for (const chain of ['ETH', 'eth', 'ETH_TESTNET', 'eth_testnet']) {
      expect(parseSandboxCommandLine(['send', '--chain', chain, '--asset', 'USDT_ETH', '--to', to, '--amount', '25', '--json']), chain).toMatchObject({
        kind: 'run',
        command: 'send',
        chain: 'ETH',
        network: 'ETH_TESTNET',
        address: to,
        whose: 'outside',
        json: true,
      });
    }
    expect(parseSandboxCommandLine(['balance', '--chain', 'tron', '--asset', 'USDT_TRON', '--of', 'cold'])).toMatchObject({ kind: 'run', chain: 'TRON', network: 'TRON_TESTNET', whose: 'cold' });
    expect(parseSandboxCommandLine(['balance', '--chain', 'ETH_MAINNET', '--asset', 'ETH'])).toEqual({
      kind: 'refused',
      message: '--chain: ETH_MAINNET is not a testnet: give TRON, BSC, ETH (the testnet here) or a network: TRON_TESTNET, BSC_TESTNET, ETH_TESTNET; any case',
      usage: sandboxUsage('balance'),
    });
  });

  it('refuses a bad flag or value in one line with the usage of that command', () => {
    for (const [argv, message] of [
      [['send', '--chain', 'BSC', '--asset', 'USDT_ETH', '--to', to, '--amount', '1'], '--asset: USDT_ETH is not an asset of BSC'],
      [['balance', '--chain', 'TRON', '--asset', 'USDT_TRON', '--address', to], '--address: not an address of TRON (base58, T…)'],
      [['balance', '--chain', 'ETH', '--asset', 'USDT_ETH', '--amount', '1'], "Unknown option '--amount'"],
      [['balance', '--chain', 'ETH', '--asset', 'USDT_ETH', '--address', to, '--of', 'cold'], '--of: give --address or --of, not both'],
      [['send', '--chain', 'ETH', '--asset', 'USDT_ETH', '--to', to], '--amount is required'],
    ] as const) {
      const r = parseSandboxCommandLine([...argv]);
      expect(r, argv.join(' ')).toEqual({ kind: 'refused', message, usage: sandboxUsage(argv[0]) });
    }
    expect(parseSandboxCommandLine(['send', '--chain', 'ETH', '--asset', 'USDT_ETH', '--to', to, '--amount', '1.0000001'])).toMatchObject({ kind: 'refused', message: expect.stringMatching(/^--amount: .*6 decimal places/) });
    expect(parseSandboxCommandLine(['transfer'])).toEqual({ kind: 'refused', message: 'unknown command "transfer": send, balance or address', usage: SANDBOX_USAGE });
  });
});

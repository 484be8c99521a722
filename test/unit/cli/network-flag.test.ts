import { describe, expect, it } from 'vitest';
import { networkFlag, parseNetwork } from '../../../src/adapters/cli/network-flag.js';
import { NETWORKS } from '../../../src/domain/money/networks.js';

describe('the --chain spellings', () => {
  it('reads a bare chain as its testnet outside production and its mainnet in production, in any case', () => {
    expect(['ETH', 'bsc', 'Tron'].map((c) => parseNetwork(c, 'test'))).toEqual(['ETH_TESTNET', 'BSC_TESTNET', 'TRON_TESTNET']);
    expect(['ETH', 'bsc', 'Tron'].map((c) => parseNetwork(c, 'live'))).toEqual(['ETH_MAINNET', 'BSC_MAINNET', 'TRON_MAINNET']);
  });

  it('takes every network as it is, whatever the side, in any case', () => {
    for (const side of ['test', 'live'] as const) {
      for (const n of NETWORKS) expect([parseNetwork(n, side), parseNetwork(n.toLowerCase(), side)]).toEqual([n, n]);
    }
  });

  it('refuses what names no network, naming the accepted spellings', () => {
    for (const bad of ['ETHER', 'ETH_', 'ETH-TESTNET', ' ETH', '', 'MAINNET']) expect(parseNetwork(bad, 'test'), bad).toBeNull();
    const r = networkFlag('test').safeParse('ETHER');
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toBe(
      'unknown network "ETHER": give TRON, BSC, ETH (the testnet here) or a network: TRON_MAINNET, TRON_TESTNET, BSC_MAINNET, BSC_TESTNET, ETH_MAINNET, ETH_TESTNET; any case',
    );
  });

  it('as a schema, gives the network; with only one side allowed, refuses a network of the other', () => {
    expect(networkFlag('live').parse('eth')).toBe('ETH_MAINNET');
    expect(networkFlag('test', 'test').parse('bsc_testnet')).toBe('BSC_TESTNET');
    const r = networkFlag('test', 'test').safeParse('ETH_MAINNET');
    expect(r.error!.issues[0]!.message).toBe('ETH_MAINNET is not a testnet: give TRON, BSC, ETH (the testnet here) or a network: TRON_TESTNET, BSC_TESTNET, ETH_TESTNET; any case');
  });
});

// The operator's lines about node URLs: a rate limit is counted every time, said once a minute per URL.
import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { EvmChainPort } from '../../../src/adapters/chains/evm-chain.js';
import { TronChainPort } from '../../../src/adapters/chains/tron-chain.js';
import { createNodeObserver } from '../../../src/adapters/metrics/node-metrics.js';

describe('the node observer', () => {
  it('says a URL’s rate limits once a minute at most, counting each in the metric', async () => {
    const lines: { msg: string; penaltiesSinceLastLine?: number; url?: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as (typeof lines)[number]) });
    const registry = new Registry();
    const observer = createNodeObserver(registry, logger);
    for (let i = 0; i < 50; i++) observer.penalty('ETH_TESTNET', 'https://one.example/v2/SECRETKEY', 1000, 'infura');
    observer.penalty('ETH_TESTNET', 'https://two.example/', 1000, 'alchemy');
    const rateLines = lines.filter((l) => /node rate limit/.test(l.msg));
    expect(rateLines.map((l) => l.url)).toEqual([expect.stringMatching(/^https:\/\/one\.example\/…#[0-9a-f]{6}$/), 'https://two.example']);
    expect(rateLines[0]!.penaltiesSinceLastLine).toBe(0);
    expect(JSON.stringify(lines)).not.toMatch(/SECRETKEY/);
    const counted = (await registry.getSingleMetric('chain_node_rate_limit_penalties_total')!.get()).values.reduce((s, v) => s + v.value, 0);
    expect(counted).toBe(51);
  });

  it('never puts a provider key from the URL in an error text', async () => {
    const evm = new EvmChainPort({ network: 'ETH_TESTNET', urls: ['http://127.0.0.1:9/v3/SECRETKEY'], contracts: {}, chainId: 11155111, retryDelayMs: 1, retryCount: 0 });
    const evmErr = (await evm.head().catch((e: unknown) => e)) as Error;
    expect(evmErr.message).toMatch(/127\.0\.0\.1:9\/…#/);
    expect(evmErr.message).not.toMatch(/SECRETKEY/);
    const tron = new TronChainPort({ network: 'TRON_TESTNET', urls: ['http://127.0.0.1:9/SECRETKEY'], contracts: {}, retryDelayMs: 1, retryCount: 0 } as never);
    const tronErr = (await tron.head().catch((e: unknown) => e)) as Error;
    expect(tronErr.message).not.toMatch(/SECRETKEY/);
  });
});

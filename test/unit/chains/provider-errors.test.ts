// The providers' catalogue (issue 30, item 4): each provider's own answer, as
// it sends it (status, JSON-RPC code, text), is read as what the adapters act
// on; a wording no row knows stays the caller's (a revert, a refused
// transaction), and the -32005 of BSC's public getLogs is not a rate limit.
import { describe, expect, it } from 'vitest';
import { classifyNodeError, retryAfterMs, type NodeAnswer } from '../../../src/adapters/chains/provider-errors.js';

const getLogs = (status: number, code: number | undefined, message: string): NodeAnswer => ({ status, code, message, method: 'eth_getLogs' });

describe('the providers catalogue', () => {
  it.each([
    ['QuickNode (HTTP 413, -32614)', getLogs(413, -32614, 'eth_getLogs is limited to a 10,000 range'), 10_000],
    ['QuickNode free plan', getLogs(413, -32614, 'eth_getLogs is limited to a 5 range'), 5],
    ['Alchemy free tier', getLogs(200, -32600, 'You can make eth_getLogs requests with up to a 500 block range. Based on your parameters, this block range should work: [0x1, 0x1f4]'), 500],
    ['Alchemy response size (the range it suggests)', getLogs(200, -32602, 'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters and the response size limit, this block range should work: [0x10, 0x4f]'), 64],
    ['BlockPI', getLogs(200, -32000, 'eth_getLogs is limited to 1024 block range'), 1024],
    ['drpc', getLogs(200, 35, 'ranges over 10000 blocks are not supported on freetier'), 10_000],
    ['Infura with a suggested range', getLogs(200, -32005, 'query returned more than 10000 results. Try with this block range [0x10, 0x1f].'), 16],
    ['BSC and java-tron /jsonrpc', getLogs(200, -32000, 'exceed maximum block range: 5000'), 5000],
  ])('%s: range too large, the limit parsed', (_name, answer, limit) => {
    expect(classifyNodeError(answer)).toMatchObject({ kind: 'range_too_large', limit });
  });

  it('reads a range refusal without a number as range too large (the caller halves)', () => {
    expect(classifyNodeError(getLogs(200, -32005, 'query returned more than 10000 results'))).toEqual({ kind: 'range_too_large', provider: 'infura' });
    expect(classifyNodeError(getLogs(200, -32000, 'block range is too wide'))).toMatchObject({ kind: 'range_too_large' });
  });

  it("reads BSC's public getLogs -32005 as the method not served, but -32005 elsewhere as a rate limit", () => {
    expect(classifyNodeError(getLogs(200, -32005, 'limit exceeded'))).toMatchObject({ kind: 'method_not_served', provider: 'bsc-dataseed' });
    expect(classifyNodeError({ status: 200, code: -32005, message: 'limit exceeded', method: 'eth_blockNumber' })).toMatchObject({ kind: 'rate_limited' });
    expect(classifyNodeError({ status: 200, code: -32005, message: 'daily request count exceeded, request rate limited', method: 'eth_call' })).toMatchObject({ kind: 'rate_limited' });
    expect(classifyNodeError({ status: 200, code: -32601, message: 'the method eth_getLogs does not exist/is not available', method: 'eth_getLogs' })).toMatchObject({ kind: 'method_not_served' });
  });

  it('honours Retry-After, and TronGrid’s own penalty in its words', () => {
    expect(classifyNodeError({ status: 429, code: 429, message: 'Your app has exceeded its compute units per second capacity', method: 'eth_call', retryAfter: '3' })).toMatchObject({
      kind: 'rate_limited',
      penaltyMs: 3000,
    });
    expect(
      classifyNodeError({ status: 403, code: undefined, message: 'The key exceeds the frequency limit(30), and the query server is suspended for 30s', method: 'wallet/getnowblock' }),
    ).toEqual({ kind: 'rate_limited', provider: 'trongrid', penaltyMs: 30_000 });
    expect(classifyNodeError({ status: 503, code: undefined, message: 'Service Unavailable', method: 'wallet/getnowblock' })).toMatchObject({ kind: 'rate_limited' });
    expect(retryAfterMs('Fri, 27 Nov 2026 06:00:10 GMT', Date.parse('Fri, 27 Nov 2026 06:00:00 GMT'))).toBe(10_000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });

  it('reads a backend behind the block asked for as such, never as an empty answer', () => {
    expect(classifyNodeError({ status: 200, code: -32000, message: 'header not found', method: 'eth_getTransactionCount' })).toMatchObject({ kind: 'node_behind' });
    expect(classifyNodeError({ status: 200, code: -32000, message: 'unknown block', method: 'eth_getLogs' })).toMatchObject({ kind: 'node_behind' });
  });

  it('leaves what it does not know to the caller', () => {
    expect(classifyNodeError({ status: 200, code: 3, message: 'execution reverted', method: 'eth_estimateGas' })).toBeNull();
    expect(classifyNodeError({ status: 200, code: -32000, message: 'nonce too low', method: 'eth_sendRawTransaction' })).toBeNull();
    expect(classifyNodeError({ status: 200, code: -32000, message: 'replacement transaction underpriced', method: 'eth_sendRawTransaction' })).toBeNull();
  });
});

// The sandbox terminal for a person: JSON log lines become one readable line each; anything else passes as is.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { pipePretty, prettyDestination, prettyFormatter } from '../../../src/adapters/sandbox/pretty-logs.js';

describe('pretty sandbox logs', () => {
  const line = JSON.stringify({ level: 40, time: Date.UTC(2026, 10, 27, 12, 30, 5), pid: 7, name: 'chain-worker', network: 'ETH_TESTNET', msg: 'node check: lagging' });

  it('turns a JSON line into time, level, process and message, then its fields; without colour when asked', () => {
    const out = prettyFormatter(false)(line);
    expect(out).toMatch(/^\[\d\d:\d\d:05\] WARN: chain-worker: node check: lagging \{"network":"ETH_TESTNET"\}\n$/);
    expect(out).not.toContain('"pid"');
    expect(prettyFormatter(true)(line)).toContain('\u001b[');
  });

  it('passes what is not a JSON line through as it is (the banner, a stack trace, half a line)', () => {
    const format = prettyFormatter(false);
    expect(format('Wallet service sandbox is running.')).toBe('Wallet service sandbox is running.\n');
    expect(format('{"level":30,"msg":')).toBe('{"level":30,"msg":\n');
  });

  it('formats the output of a child process line by line, and the lines of the supervisor logger', async () => {
    const format = prettyFormatter(false);
    const from = new PassThrough();
    const to = new PassThrough();
    let text = '';
    to.on('data', (d: Buffer) => (text += d.toString()));
    pipePretty(from, to, format);
    from.end(`${line}\nplain\n`);
    await new Promise((r) => setTimeout(r, 20));
    expect(text.split('\n').slice(0, 2)).toEqual([expect.stringMatching(/WARN: chain-worker: node check: lagging/), 'plain']);
    let own = '';
    const sink = new PassThrough().on('data', (d: Buffer) => (own += d.toString()));
    prettyDestination(sink, format).write(`${line}\n`);
    expect(own).toMatch(/WARN: chain-worker: node check: lagging/);
  });
});

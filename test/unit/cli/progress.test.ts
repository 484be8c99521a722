import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineCommand } from '../../../src/adapters/cli/command.js';
import { heartbeat, terminalProgress } from '../../../src/adapters/cli/progress.js';
import { runOps } from '../../../src/adapters/cli/run-ops.js';

afterEach(() => vi.useRealTimers());

describe('progress of a slow ops command', () => {
  it('goes to a terminal only: a pipe or file (a script reading stderr) gets nothing', () => {
    const written: string[] = [];
    const write = (s: string) => written.push(s);
    expect(terminalProgress({ isTTY: false, write })).toBeUndefined();
    expect(terminalProgress({ write })).toBeUndefined();
    terminalProgress({ isTTY: true, write })!('probing');
    expect(written).toEqual(['probing\n']);
  });

  it('says every period that the command still works, and stops when it is done', () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const stop = heartbeat('ledger reconcile', (l) => lines.push(l), 5_000);
    vi.advanceTimersByTime(4_999);
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(5_001);
    expect(lines).toEqual(['ledger reconcile: still working (5 s)', 'ledger reconcile: still working (10 s)']);
    stop();
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(2);
  });

  it('keeps progress off stdout: with --json stdout holds the one result object, the lines go to the progress sink', async () => {
    vi.useFakeTimers();
    let finish: () => void = () => {};
    const slow = defineCommand({
      path: ['slow', 'thing'],
      slow: true,
      summary: 'takes a while',
      flags: {},
      input: z.object({}),
      run: async (ctx) => {
        ctx.progress?.('slow thing: step 1 of 2');
        await new Promise<void>((r) => (finish = r));
        return { ok: true };
      },
    });
    const out: string[] = [];
    const progress: string[] = [];
    const running = runOps([slow], ['slow', 'thing', '--json'], { resolve: () => { throw new Error('unused'); }, progress: (l) => progress.push(l) }, { out: (s) => out.push(s), err: (s) => out.push(`stderr: ${s}`) });
    await vi.advanceTimersByTimeAsync(5_000);
    finish();
    expect(await running).toBe(0);
    expect(out).toEqual(['{"ok":true}']);
    expect(progress).toEqual(['slow thing: step 1 of 2', 'slow thing: still working (5 s)']);
  });
});

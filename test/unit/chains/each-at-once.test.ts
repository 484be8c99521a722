// eachAtOnce: items of a step advanced several at once, never more than
// asked; a failure (a node down) lets the running items finish, starts no
// other, and is thrown after them.
import { describe, expect, it } from 'vitest';
import { eachAtOnce } from '../../../src/application/each-at-once.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('eachAtOnce', () => {
  it('runs every item, at most `concurrency` at a time', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await eachAtOnce([1, 2, 3, 4, 5, 6, 7], 3, async (i) => {
      running++;
      most = Math.max(most, running);
      await tick(5);
      done.push(i);
      running--;
    });
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it('on a failure starts no further item, lets the running ones end, then throws it', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const down = new Error('node down');
    const run = eachAtOnce([1, 2, 3, 4, 5, 6], 2, async (i) => {
      started.push(i);
      if (i === 1) throw down;
      await tick(20);
      finished.push(i);
    });
    await expect(run).rejects.toBe(down);
    expect(started).toEqual([1, 2]);
    expect(finished).toEqual([2]);
  });
});

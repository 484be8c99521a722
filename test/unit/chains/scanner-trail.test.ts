// How far below the head the scanner loop stops while a lagging pool does not serve the newest blocks.
import { describe, expect, it } from 'vitest';
import { MAX_TRAIL_BLOCKS, TRAIL_EASE_STEPS, nextTrail } from '../../../src/adapters/chains/scanner-loop.js';

describe('the scanner trail', () => {
  it('doubles on node_behind up to its cap, and eases one block after a run of steps that advance', () => {
    let t = { blocks: 0, eased: 0 };
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) seen.push((t = nextTrail(t, 'node_behind')).blocks);
    expect(seen).toEqual([1, 2, 4, 8, 16, 32, 32, 32]);
    expect(t.blocks).toBe(MAX_TRAIL_BLOCKS);
    for (let i = 0; i < TRAIL_EASE_STEPS - 1; i++) t = nextTrail(t, 'advanced');
    expect(t.blocks).toBe(32);
    t = nextTrail(t, 'advanced');
    expect(t).toEqual({ blocks: 31, eased: 0 });
    // An idle or retried step neither raises nor eases it; node_behind restarts the count.
    expect(nextTrail(t, 'other')).toBe(t);
    expect(nextTrail({ blocks: 3, eased: 9 }, 'node_behind')).toEqual({ blocks: 6, eased: 0 });
    expect(nextTrail({ blocks: 0, eased: 0 }, 'advanced')).toEqual({ blocks: 0, eased: 0 });
  });
});

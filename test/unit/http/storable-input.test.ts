import { describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH, findUnstorable } from '../../../src/adapters/http/storable-input.js';

describe('input PostgreSQL can store', () => {
  it('passes ordinary JSON, emoji (surrogate pairs) and non-Latin text included', () => {
    expect(findUnstorable({ label: 'Zoë 👩‍💻 漢字', tags: ['a', 1, null, true, { 'ключ': 'значение' }] })).toBeNull();
    expect(findUnstorable(undefined)).toBeNull();
  });

  it('names the first string, key or depth it cannot store', () => {
    expect(findUnstorable({ a: { b: ['ok', 'x\u0000'] } })?.path).toBe('a.b.1');
    expect(findUnstorable({ a: '\ud800' })).toEqual({ path: 'a', message: expect.stringMatching(/surrogate/) });
    expect(findUnstorable({ a: 'x\udc00y' })?.path).toBe('a');
    expect(findUnstorable({ ['k\u0000']: 1 })?.path).toBe('k\u0000');
    expect(findUnstorable({ ['\ud83d']: 1 })?.message).toMatch(/key/);
    expect(findUnstorable(JSON.parse('{"n":[1,1e400]}'))).toEqual({ path: 'n.1', message: expect.stringMatching(/finite/) });
  });

  it(`refuses nesting deeper than ${MAX_BODY_DEPTH} levels without recursion, even a million deep`, () => {
    const nest = (levels: number) => {
      let v: unknown = 0;
      for (let i = 0; i < levels; i++) v = [v];
      return v;
    };
    expect(findUnstorable(nest(MAX_BODY_DEPTH))).toBeNull();
    expect(findUnstorable(nest(MAX_BODY_DEPTH + 1))?.message).toMatch(/nested deeper/);
    expect(findUnstorable(nest(1_000_000))?.message).toMatch(/nested deeper/);
  });
});

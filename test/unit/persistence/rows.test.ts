// The raw-row readers of the request path: arrays and timestamps in either of
// the forms the driver may hand over.
import { describe, expect, it } from 'vitest';
import { rowDate, rowDateOrNull, rowTextArray } from '../../../src/adapters/persistence/rows.js';

describe('raw rows', () => {
  it('reads a text[] column as a JS array or a PostgreSQL literal, quoted elements unescaped', () => {
    expect(rowTextArray(['wallets:read', 'wallets:write'])).toEqual(['wallets:read', 'wallets:write']);
    expect(rowTextArray('{}')).toEqual([]);
    expect(rowTextArray('{wallets:read,withdrawals:write}')).toEqual(['wallets:read', 'withdrawals:write']);
    expect(rowTextArray('{10.0.0.0/8,2001:db8::/32}')).toEqual(['10.0.0.0/8', '2001:db8::/32']);
    expect(rowTextArray('{"a,b","say \\"hi\\"","back\\\\slash"}')).toEqual(['a,b', 'say "hi"', 'back\\slash']);
    expect(rowTextArray(null)).toEqual([]);
  });

  it('reads a timestamp as a Date, null as null', () => {
    const at = new Date('2026-11-26T08:00:00.000Z');
    expect(rowDate(at)).toBe(at);
    expect(rowDate('2026-11-26T08:00:00+00:00')).toEqual(at);
    expect(rowDateOrNull(null)).toBeNull();
    expect(rowDateOrNull(undefined)).toBeNull();
  });
});

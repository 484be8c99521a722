import { describe, expect, it } from 'vitest';
import { narrowRestrictions } from '../../../src/domain/auth/api-key-grant.js';
import { DomainError } from '../../../src/domain/errors.js';

const at = (iso: string) => new Date(iso);
const open = { allowedIps: [] as string[], expiresAt: null };
const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return 'OK';
  } catch (err) {
    return (err as DomainError).code;
  }
};

describe('a new key is at least as restricted as its creator', () => {
  it('takes what it asks for from an unrestricted creator', () => {
    expect(narrowRestrictions({ allowedIps: ['10.0.0.0/8'], expiresAt: at('2030-01-01T00:00:00Z') }, open)).toEqual({
      allowedIps: ['10.0.0.0/8'],
      expiresAt: at('2030-01-01T00:00:00Z'),
    });
    expect(narrowRestrictions(open, open)).toEqual(open);
  });

  it('inherits the creator’s allowlist and expiry when it names none', () => {
    const creator = { allowedIps: ['10.0.0.0/8', '2001:db8::/32'], expiresAt: at('2027-01-01T00:00:00Z') };
    expect(narrowRestrictions(open, creator)).toEqual(creator);
  });

  it('may narrow them, never widen them (INSUFFICIENT_SCOPE)', () => {
    const creator = { allowedIps: ['10.0.0.0/8'], expiresAt: at('2027-01-01T00:00:00Z') };
    expect(narrowRestrictions({ allowedIps: ['10.1.2.0/24', '10.9.9.9'], expiresAt: at('2026-12-01T00:00:00Z') }, creator)).toEqual({
      allowedIps: ['10.1.2.0/24', '10.9.9.9'],
      expiresAt: at('2026-12-01T00:00:00Z'),
    });
    expect(codeOf(() => narrowRestrictions({ allowedIps: ['0.0.0.0/0'], expiresAt: null }, creator))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => narrowRestrictions({ allowedIps: ['10.0.0.0/7'], expiresAt: null }, creator))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => narrowRestrictions({ allowedIps: ['::ffff:10.0.0.1'], expiresAt: null }, creator))).toBe('OK');
    expect(codeOf(() => narrowRestrictions({ allowedIps: ['2001:db8::1'], expiresAt: null }, creator))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => narrowRestrictions({ allowedIps: [], expiresAt: at('2027-01-01T00:00:01Z') }, creator))).toBe('INSUFFICIENT_SCOPE');
  });
});

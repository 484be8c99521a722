import { describe, expect, it } from 'vitest';
import { canonicalAllowlistEntry, isIpAllowed } from '../../../src/domain/auth/ip-allowlist.js';

describe('allowlist entries', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['10.0.0.7/24', '10.0.0.0/24'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['2001:DB8:0:0::1', '2001:db8::1'],
    ['2001:db8::1/32', '2001:db8::/32'],
    ['::1', '::1'],
  ])('stores %s as %s', (entry, stored) => {
    expect(canonicalAllowlistEntry(entry)).toBe(stored);
  });

  it.each([
    ['010.0.0.1', 'octal to ipaddr.js'],
    ['0x0a.0.0.1', 'hex'],
    ['10.1', 'two-part'],
    ['167772161', 'a bare integer'],
    ['10.0.0.0/33', 'too many bits'],
    ['2001:db8::/129', 'too many bits'],
    ['10.0.0.0/024', 'a padded prefix length'],
    ['10.0.0.0/8/8', 'two slashes'],
    ['10.0.0.0/', 'an empty prefix length'],
    ['not-an-ip', 'words'],
    ['fe80::1%eth0', 'a zone id'],
    ['', 'empty'],
  ])('refuses %s (%s)', (entry) => {
    expect(canonicalAllowlistEntry(entry)).toBeNull();
  });

  it('matches the stored forms, IPv4-mapped IPv6 sources as IPv4', () => {
    expect(isIpAllowed('10.0.0.200', [canonicalAllowlistEntry('10.0.0.7/24')!])).toBe(true);
    expect(isIpAllowed('10.0.1.1', ['10.0.0.0/24'])).toBe(false);
    expect(isIpAllowed('::ffff:10.0.0.9', ['10.0.0.0/24'])).toBe(true);
    expect(isIpAllowed('2001:db8:ffff::1', [canonicalAllowlistEntry('2001:db8::1/32')!])).toBe(true);
    expect(isIpAllowed('1.2.3.4', [])).toBe(true);
  });
});

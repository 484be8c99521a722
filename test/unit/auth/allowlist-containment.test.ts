// A child key's allowlist, once accepted at minting, never lets in an address
// its parent's allowlist keeps out — whatever mix of IPv4, IPv6 and
// IPv4-mapped IPv6 spellings either of them uses.
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { narrowRestrictions } from '../../../src/domain/auth/api-key-grant.js';
import { canonicalAllowlistEntry, isIpAllowed, parseIp } from '../../../src/domain/auth/ip-allowlist.js';

const v4Bytes = fc.uint8Array({ minLength: 4, maxLength: 4 });
const v6Bytes = fc.uint8Array({ minLength: 16, maxLength: 16 });
const v4Text = (b: Uint8Array) => ipaddr.fromByteArray([...b]).toString();
const v6Text = (b: Uint8Array) => ipaddr.fromByteArray([...b]).toString();
const mappedText = (b: Uint8Array) => `::ffff:${v4Text(b)}`;
/** The deprecated IPv4-compatible form: IPv6, whatever its dotted tail looks like. */
const compatText = (b: Uint8Array) => `::${v4Text(b)}`;
/** IPv6 near the mapped block (::ffff:0:0/96): the addresses whose family is in question. */
const nearMapped = fc.tuple(fc.integer({ min: 0xfffe, max: 0xffff }), v4Bytes).map(([hi, b]) => {
  const bytes = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, hi >> 8, hi & 0xff, ...b];
  return v6Text(Uint8Array.from(bytes));
});

/** Allowlist entries in every spelling the API accepts, with prefix lengths around the interesting edges. */
const entry = fc.oneof(
  fc.tuple(v4Bytes, fc.integer({ min: 0, max: 32 })).map(([b, n]) => `${v4Text(b)}/${n}`),
  v4Bytes.map(v4Text),
  fc.tuple(v4Bytes, fc.integer({ min: 96, max: 128 })).map(([b, n]) => `${mappedText(b)}/${n}`),
  v4Bytes.map(mappedText),
  fc.tuple(v4Bytes, fc.integer({ min: 96, max: 128 })).map(([b, n]) => `${compatText(b)}/${n}`),
  v4Bytes.map(compatText),
  fc.tuple(nearMapped, fc.integer({ min: 64, max: 128 })).map(([a, n]) => `${a}/${n}`),
  fc.tuple(v6Bytes, fc.integer({ min: 0, max: 128 })).map(([b, n]) => `${v6Text(b)}/${n}`),
  fc.constantFrom('::/0', '::/80', '::/95', '::/96', '::ffff:0.0.0.0/96', '::ffff:127.0.0.2/128', '0.0.0.0/0', '127.0.0.1'),
);

/** Source addresses as a socket reports them: IPv4, IPv6, and IPv4 as mapped IPv6. */
const source = fc.oneof(v4Bytes.map(v4Text), v4Bytes.map(mappedText), v4Bytes.map(compatText), v6Bytes.map(v6Text), nearMapped);

/** Addresses inside an entry: its network with random host bits, in both spellings when it is IPv4. */
function addressesInside(e: string, seed: Uint8Array): string[] {
  const [addrText, bitsText] = e.split('/');
  const addr = parseIp(addrText!)!;
  const bytes = addr.toByteArray();
  const bits = bitsText === undefined ? bytes.length * 8 : Number(bitsText);
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    const mask = (0xff << (8 - keep)) & 0xff;
    bytes[i] = (bytes[i]! & mask) | (seed[i % seed.length]! & ~mask & 0xff);
  }
  const inside = ipaddr.fromByteArray(bytes);
  if (inside.kind() === 'ipv4') return [inside.toString(), `::ffff:${inside.toString()}`];
  const v6 = inside as ipaddr.IPv6;
  return v6.isIPv4MappedAddress() ? [v6.toString(), v6.toIPv4Address().toString()] : [v6.toString()];
}

function accepted(child: string[], parent: string[]): string[] | null {
  try {
    return [...narrowRestrictions({ allowedIps: child, expiresAt: null }, { allowedIps: parent, expiresAt: null }).allowedIps];
  } catch {
    return null;
  }
}

describe('child allowlists stay within their parent', () => {
  it('allows no address through an accepted child that the parent refuses', () => {
    fc.assert(
      fc.property(
        fc.array(entry, { minLength: 1, maxLength: 3 }),
        fc.array(entry, { minLength: 1, maxLength: 3 }),
        fc.array(source, { maxLength: 8 }),
        v6Bytes,
        (parentRaw, childRaw, sources, seed) => {
          const parent = parentRaw.map((e) => canonicalAllowlistEntry(e)!);
          const child = childRaw.map((e) => canonicalAllowlistEntry(e)!);
          expect([...parent, ...child].every((e) => e !== null)).toBe(true);
          const granted = accepted(child, parent);
          if (granted === null) return;
          const probes = [...sources, ...childRaw.flatMap((e) => addressesInside(e, seed))];
          for (const ip of probes) {
            if (isIpAllowed(ip, granted)) expect(isIpAllowed(ip, parent), `${ip} via child ${granted} / parent ${parent}`).toBe(true);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('checks the same address the same way in every spelling, at minting and at request time', () => {
    const isV4 = (ip: string) => ipaddr.process(ip).kind() === 'ipv4';
    fc.assert(
      fc.property(entry, v6Bytes, (e, seed) => {
        const stored = canonicalAllowlistEntry(e)!;
        // An IPv6 range never admits IPv4 clients, even where its bits cover the mapped block.
        const family = stored.includes(':') ? 'ipv6' : 'ipv4';
        for (const ip of addressesInside(e, seed).filter((a) => isV4(a) === (family === 'ipv4'))) {
          expect(isIpAllowed(ip, [e]), `${ip} in ${e}`).toBe(true);
          expect(isIpAllowed(ip, [stored]), `${ip} in stored ${stored}`).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses the escalations found by the outside probe', () => {
    for (const parent of ['::/0', '::/80', '::/64']) {
      expect(accepted(['::ffff:0.0.0.0/96'].map((e) => canonicalAllowlistEntry(e)!), [parent])).toBeNull();
      expect(accepted(['::ffff:127.0.0.2/128'].map((e) => canonicalAllowlistEntry(e)!), [parent])).toBeNull();
    }
    // And the other way round: the mapped spelling of an allowed IPv4 address is the same address.
    expect(accepted([canonicalAllowlistEntry('::ffff:127.0.0.1/128')!], ['127.0.0.1'])).toEqual(['127.0.0.1/32']);
    expect(canonicalAllowlistEntry('::ffff:10.1.2.3/104')).toBe('10.0.0.0/8');
    expect(canonicalAllowlistEntry('::ffff:10.1.2.3')).toBe('10.1.2.3');
    // IPv4-compatible IPv6 (::a.b.c.d) is IPv6: it neither admits IPv4 clients nor passes for an IPv4 range.
    expect(canonicalAllowlistEntry('::0.0.0.0/96')).toBe('::/96');
    expect(canonicalAllowlistEntry('::10.0.0.1')).toBe('::a00:1');
    expect(isIpAllowed('127.0.0.2', [canonicalAllowlistEntry('::0.0.0.0/96')!])).toBe(false);
    expect(isIpAllowed('::10.0.0.1', ['10.0.0.1'])).toBe(false);
    expect(accepted([canonicalAllowlistEntry('::0.0.0.0/96')!], ['0.0.0.0/0'])).toBeNull();
  });
});

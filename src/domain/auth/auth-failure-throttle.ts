// Throttles failed authentication before it costs anything: requests that
// fail to authenticate take tokens from a bucket per source address (IPv6 by
// its /64, which one client usually holds whole) and per claimed key id, and
// while a bucket is empty the next request is refused before the key is
// looked up, decrypted or its signature computed. In memory, per process, and
// pure: the caller passes the time.
//
// The key-id bucket applies only to sources that have failed themselves
// recently, so a flood of bad signatures naming a key id cannot lock out that
// key's owner calling from a clean address (docs/adr/0014).
import ipaddr from 'ipaddr.js';
import { normalAddress, parseIp } from './ip-allowlist.js';

export interface ThrottleLimits {
  /** Tokens regained per second by a source's bucket. */
  ratePerSecond: number;
  /** Failures a source may make in a burst. */
  burst: number;
}

/** How much more a key id's bucket holds and regains than a source's. */
export const KEY_ID_FACTOR = 10;
/** Buckets kept per kind; the least recently touched go first. */
const MAX_BUCKETS = 100_000;

interface Bucket {
  tokens: number;
  atMs: number;
}

class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
  ) {}

  private level(name: string, nowMs: number): Bucket | undefined {
    const b = this.buckets.get(name);
    if (!b) return undefined;
    const tokens = Math.min(this.burst, b.tokens + ((nowMs - b.atMs) / 1000) * this.ratePerSecond);
    if (tokens >= this.burst) {
      this.buckets.delete(name); // full again: nothing to remember
      return undefined;
    }
    return { tokens, atMs: nowMs };
  }

  has(name: string, nowMs: number): boolean {
    return this.level(name, nowMs) !== undefined;
  }

  /** Whole seconds until one token is back; null when one is there. */
  retryAfterSeconds(name: string, nowMs: number): number | null {
    const b = this.level(name, nowMs);
    if (!b || b.tokens >= 1) return null;
    return Math.max(1, Math.ceil((1 - b.tokens) / this.ratePerSecond));
  }

  take(name: string, nowMs: number): void {
    const b = this.level(name, nowMs) ?? { tokens: this.burst, atMs: nowMs };
    this.buckets.delete(name); // re-inserted last: Map order is recency order
    this.buckets.set(name, { tokens: Math.max(0, b.tokens - 1), atMs: nowMs });
    if (this.buckets.size > MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
  }
}

/** The bucket name of a source address: IPv4 (mapped forms included) whole, IPv6 by /64. */
export function sourceOf(ip: string): string {
  const parsed = parseIp(ip);
  if (!parsed) return `other:${ip.slice(0, 64)}`;
  const addr = normalAddress(parsed);
  if (addr.kind() === 'ipv4') return addr.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/64`).toString()}/64`;
}

export class AuthFailureThrottle {
  private readonly sources: TokenBuckets;
  private readonly keyIds: TokenBuckets;

  constructor(limits: ThrottleLimits) {
    this.sources = new TokenBuckets(limits.ratePerSecond, limits.burst);
    this.keyIds = new TokenBuckets(limits.ratePerSecond * KEY_ID_FACTOR, limits.burst * KEY_ID_FACTOR);
  }

  /** Seconds the caller must wait before this request is even looked at; null to go on. */
  retryAfter(sourceIp: string, keyId: string | undefined, now: Date): number | null {
    const source = sourceOf(sourceIp);
    const ms = now.getTime();
    const bySource = this.sources.retryAfterSeconds(source, ms);
    if (bySource !== null) return bySource;
    if (keyId === undefined || !this.sources.has(source, ms)) return null;
    return this.keyIds.retryAfterSeconds(keyId, ms);
  }

  /** One failed authentication; `keyId` only when it named an existing key. */
  recordFailure(sourceIp: string, keyId: string | undefined, now: Date): void {
    const ms = now.getTime();
    this.sources.take(sourceOf(sourceIp), ms);
    if (keyId !== undefined) this.keyIds.take(keyId, ms);
  }
}

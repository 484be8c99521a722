// Throttles failed authentication before it costs anything: requests that
// fail to authenticate take tokens from a bucket per source address (IPv6 by
// its /64, which one client usually holds whole) and per claimed key id, and
// while a bucket is empty the next request is refused before the key is
// looked up, decrypted or its signature computed. In memory, per process, and
// pure: the caller passes the time.
//
// The source's token is taken before the work (admit) and given back when
// the request proves who it is (settle): a burst of bad requests sent at once
// gets no more than the bucket holds to the key lookup and signature check,
// where taking it only after a failure let all of them through. A request
// that finds every token held by requests still in flight waits for them
// (`wait`) instead of being refused: an honest client's parallel requests all
// pass, their tokens coming back as each succeeds.
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

  /** Whole seconds until one token is back; null when one is there. */
  retryAfterSeconds(name: string, nowMs: number): number | null {
    const b = this.level(name, nowMs);
    if (!b || b.tokens >= 1) return null;
    return Math.max(1, Math.ceil((1 - b.tokens) / this.ratePerSecond));
  }

  /** The tokens there now (the burst when the bucket is full and forgotten). */
  tokens(name: string, nowMs: number): number {
    return this.level(name, nowMs)?.tokens ?? this.burst;
  }

  take(name: string, nowMs: number): void {
    this.add(name, -1, nowMs);
  }

  /** A token taken before the work, back: the request succeeded. */
  giveBack(name: string, nowMs: number): void {
    this.add(name, 1, nowMs);
  }

  private add(name: string, delta: number, nowMs: number): void {
    const b = this.level(name, nowMs) ?? { tokens: this.burst, atMs: nowMs };
    const tokens = Math.min(this.burst, Math.max(0, b.tokens + delta));
    this.buckets.delete(name); // re-inserted last: Map order is recency order
    if (tokens >= this.burst) return; // full: nothing to remember
    this.buckets.set(name, { tokens, atMs: nowMs });
    if (this.buckets.size > MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
  }
}

/** What admit decides: go on (and settle later), wait for requests in flight to settle, or come back later. */
export type Admission = { ticket: AdmissionTicket } | { wait: true } | { retryAfterSeconds: number };

/** A request let through to authenticate, holding one token of its source's bucket. */
export interface AdmissionTicket {
  readonly source: string;
  readonly keyId: string | undefined;
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
  /** Requests admitted per source and not settled yet: the tokens they hold. */
  private readonly inFlight = new Map<string, number>();
  private readonly burst: number;

  constructor(limits: ThrottleLimits) {
    this.burst = limits.burst;
    this.sources = new TokenBuckets(limits.ratePerSecond, limits.burst);
    this.keyIds = new TokenBuckets(limits.ratePerSecond * KEY_ID_FACTOR, limits.burst * KEY_ID_FACTOR);
  }

  /**
   * Before any work: a token of the source's bucket is taken for this request
   * (the ticket, to settle once the outcome is known), or the request waits
   * for the tokens held by requests in flight, or comes back later.
   */
  admit(sourceIp: string, keyId: string | undefined, now: Date): Admission {
    const source = sourceOf(sourceIp);
    const ms = now.getTime();
    if (keyId !== undefined && this.failedRecently(source, ms)) {
      const byKey = this.keyIds.retryAfterSeconds(keyId, ms);
      if (byKey !== null) return { retryAfterSeconds: byKey };
    }
    if (this.sources.tokens(source, ms) >= 1) {
      this.sources.take(source, ms);
      this.inFlight.set(source, (this.inFlight.get(source) ?? 0) + 1);
      return { ticket: { source, keyId } };
    }
    if ((this.inFlight.get(source) ?? 0) > 0) return { wait: true };
    return { retryAfterSeconds: this.sources.retryAfterSeconds(source, ms) ?? 1 };
  }

  /**
   * The outcome of an admitted request: proved who it is (or failed for a
   * reason of the service's, `failed` null) gives its token back; a failed
   * authentication keeps it spent, and `againstKey` takes one of the key id's.
   */
  settle(ticket: AdmissionTicket, failed: { againstKey: boolean } | null, now: Date): void {
    const ms = now.getTime();
    const held = (this.inFlight.get(ticket.source) ?? 1) - 1;
    if (held > 0) this.inFlight.set(ticket.source, held);
    else this.inFlight.delete(ticket.source);
    if (failed === null) this.sources.giveBack(ticket.source, ms);
    else if (failed.againstKey && ticket.keyId !== undefined) this.keyIds.take(ticket.keyId, ms);
  }

  /**
   * The source has failed lately: its bucket holds less than the burst, the
   * tokens of its requests in flight counted back (an honest client's
   * parallel requests do not make it look like one that fails, so the key
   * id's bucket never applies to it).
   */
  private failedRecently(source: string, ms: number): boolean {
    return this.sources.tokens(source, ms) + (this.inFlight.get(source) ?? 0) < this.burst;
  }
}

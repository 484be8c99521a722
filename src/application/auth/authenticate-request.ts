// Authenticates one signed request (docs/api.md#authentication): the
// failed-authentication throttle, headers, clock skew, key, source-IP
// allowlist (before the signature), signature, expiry, replay, workspace
// state. Returns who is calling or throws the documented code.
import { inject, injectable } from 'tsyringe';
import { isExpired, keySide, scopesOf } from '../../domain/auth/api-key.js';
import { sourceOf, type AdmissionTicket, type AuthFailureThrottle } from '../../domain/auth/auth-failure-throttle.js';
import { isIpAllowed } from '../../domain/auth/ip-allowlist.js';
import type { Principal } from '../../domain/auth/principal.js';
import {
  SIGNATURE_PATTERN,
  SIGNATURE_WINDOW_SECONDS,
  TIMESTAMP_PATTERN,
  signingString,
} from '../../domain/auth/signing-string.js';
import { DomainError, isDomainError, type ErrorCode } from '../../domain/errors.js';
import type { Clock, Credential, CredentialStore, RequestAdmission, RequestSigner, SecretCipher } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

export interface SignedRequest {
  keyId: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  method: string;
  /** The request target exactly as sent: path and query string. */
  path: string;
  bodySha256Hex: string;
  sourceIp: string;
}

/** Key secrets kept decrypted, by ciphertext (a new secret is a new ciphertext); past this many the memo starts again. */
const SECRETS_KEPT = 10_000;

/** Fresh reads of a key for one request: a key changed between each read and its admission that often is refused. */
const MAX_FRESH_READS = 3;

/** Refusals decided on the credential alone, before admission records anything: decided again when it was a kept copy. */
const BEFORE_ADMISSION: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['INVALID_API_KEY', 'IP_NOT_ALLOWED', 'INVALID_SIGNATURE', 'API_KEY_EXPIRED']);

/** Admission found the key or its workspace changed since it was read: nothing was recorded. */
class StaleCredential extends Error {}

/** How long a request waits for its source's tokens held by requests in flight before it is refused. */
const MAX_ADMISSION_WAIT_MS = 5_000;

/** Failures that count against the source's bucket: every way of not proving who you are. */
const FAILED: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'MISSING_AUTH_HEADERS',
  'TIMESTAMP_EXPIRED',
  'INVALID_API_KEY',
  'IP_NOT_ALLOWED',
  'INVALID_SIGNATURE',
  'API_KEY_EXPIRED',
  'REPLAY_DETECTED',
]);
/** Those that also count against the key id: it named a real key (unknown ids would only fill memory). */
const AGAINST_KEY: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['IP_NOT_ALLOWED', 'INVALID_SIGNATURE', 'API_KEY_EXPIRED', 'REPLAY_DETECTED']);

@injectable()
export class AuthenticateRequest {
  constructor(
    @inject(TOKENS.CredentialStore) private readonly credentials: CredentialStore,
    @inject(TOKENS.RequestAdmission) private readonly admission: RequestAdmission,
    @inject(TOKENS.SecretCipher) private readonly cipher: SecretCipher,
    @inject(TOKENS.RequestSigner) private readonly signer: RequestSigner,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.AuthFailureThrottle) private readonly throttle: AuthFailureThrottle,
  ) {}

  async execute(req: SignedRequest): Promise<Principal> {
    const ticket = await this.admitted(req);
    const now = this.clock.now();
    let failed: { againstKey: boolean } | null = null;
    try {
      return await this.check(req, now);
    } catch (err) {
      if (isDomainError(err) && FAILED.has(err.code)) failed = { againstKey: AGAINST_KEY.has(err.code) };
      throw err;
    } finally {
      this.throttle.settle(ticket, failed, this.clock.now());
      this.wake(ticket.source);
    }
  }

  /**
   * The secret a ciphertext holds, decrypted once per process (issue 35: an AES-GCM decryption was a fortieth of
   * a signed read's CPU). The process holds the key that decrypts every ciphertext anyway; a memo keyed by the
   * ciphertext can never answer for a rotated secret, whose ciphertext is new.
   */
  private readonly secrets = new Map<string, string>();

  private secretOf(ciphertext: string): string {
    let secret = this.secrets.get(ciphertext);
    if (secret === undefined) {
      secret = this.cipher.decrypt(ciphertext);
      if (this.secrets.size >= SECRETS_KEPT) this.secrets.clear();
      this.secrets.set(ciphertext, secret);
    }
    return secret;
  }

  /** Requests waiting for their source's tokens held in flight, woken as each settles. */
  private readonly waiting = new Map<string, Set<() => void>>();

  /** A token of the source's bucket, taken before any work; RATE_LIMITED when none will come in time. */
  private async admitted(req: SignedRequest): Promise<AdmissionTicket> {
    const deadline = this.clock.now().getTime() + MAX_ADMISSION_WAIT_MS;
    for (;;) {
      const admission = this.throttle.admit(req.sourceIp, req.keyId, this.clock.now());
      if ('ticket' in admission) return admission.ticket;
      const left = deadline - this.clock.now().getTime();
      if ('retryAfterSeconds' in admission || left <= 0) {
        throw new DomainError('RATE_LIMITED', 'Too many failed authentications from this address, or naming this key; retry later', {
          retry_after_seconds: 'retryAfterSeconds' in admission ? admission.retryAfterSeconds : 1,
        });
      }
      await this.settledOrTimeout(sourceOf(req.sourceIp), left);
    }
  }

  private settledOrTimeout(source: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.waiting.get(source) ?? new Set<() => void>();
      this.waiting.set(source, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.waiting.get(source) === waiters) this.waiting.delete(source);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  private wake(source: string): void {
    for (const done of [...(this.waiting.get(source) ?? [])]) done();
  }

  /**
   * Checks the request against its key. A refusal decided on a credential this process kept is decided again on a
   * fresh read (the key may have been given a new secret, a wider allowlist or a later expiry), and admission
   * refuses a kept credential the database no longer matches (revoked, narrowed, the workspace deactivated): then
   * the request is checked again, on a fresh read, at most {@link MAX_FRESH_READS} times.
   */
  private async check(req: SignedRequest, now: Date, freshReads = 0): Promise<Principal> {
    const { keyId, timestamp, signature } = req;
    if (!keyId || !timestamp || !signature) {
      throw new DomainError(
        'MISSING_AUTH_HEADERS',
        'X-Service-Key, X-Service-Timestamp and X-Service-Signature are required',
      );
    }
    if (!TIMESTAMP_PATTERN.test(timestamp)) {
      throw new DomainError('TIMESTAMP_EXPIRED', 'X-Service-Timestamp must be Unix seconds');
    }
    const skew = Math.abs(Math.floor(now.getTime() / 1000) - Number(timestamp));
    if (skew > SIGNATURE_WINDOW_SECONDS) {
      throw new DomainError('TIMESTAMP_EXPIRED', 'Request timestamp is more than 5 minutes from server time');
    }

    const found = await this.credentials.findCredential(keyId, { fresh: freshReads > 0 });
    try {
      return await this.checkAgainst(found, { ...req, keyId, timestamp, signature }, now);
    } catch (err) {
      const stale = err instanceof StaleCredential;
      const decidedOnKept = found?.remembered === true && isDomainError(err) && BEFORE_ADMISSION.has(err.code);
      if ((stale || decidedOnKept) && freshReads < MAX_FRESH_READS) return this.check(req, now, freshReads + 1);
      if (stale) throw new DomainError('INVALID_API_KEY', 'The API key changed while the request was checked; retry');
      throw err;
    }
  }

  private async checkAgainst(found: Credential | null, req: SignedRequest & { keyId: string; timestamp: string; signature: string }, now: Date): Promise<Principal> {
    const { timestamp, signature } = req;
    if (!found || found.key.revokedAt !== null) {
      throw new DomainError('INVALID_API_KEY', 'Unknown or revoked API key');
    }
    const { key, workspace } = found;
    if (!isIpAllowed(req.sourceIp, key.allowedIps)) {
      throw new DomainError('IP_NOT_ALLOWED', 'Source IP is not in the allowlist of this API key');
    }

    const expected = this.signer.sign(
      this.secretOf(key.secretCiphertext),
      signingString(timestamp, req.method, req.path, req.bodySha256Hex),
    );
    if (!SIGNATURE_PATTERN.test(signature) || !this.signer.equals(expected, signature)) {
      throw new DomainError('INVALID_SIGNATURE', 'Signature does not match the request');
    }
    if (isExpired(key, now)) {
      throw new DomainError('API_KEY_EXPIRED', 'This API key has expired');
    }
    // Admission comes after the signature, so nobody without the secret can
    // spend a key's rate limit. The signature is kept until its timestamp can
    // no longer pass the skew check: a replay is caught for as long as it
    // could otherwise succeed.
    const admitted = await this.admission.admit({
      apiKeyId: key.id,
      keyId: key.keyId,
      credentialVersion: found.version,
      signature,
      signatureExpiresAt: new Date((Number(timestamp) + 2 * SIGNATURE_WINDOW_SECONDS) * 1000),
    });
    if (admitted.stale) throw new StaleCredential();
    if (admitted.replayed) {
      throw new DomainError('REPLAY_DETECTED', 'This signature was already used');
    }
    if (admitted.retryAfterSeconds !== null) {
      throw new DomainError('RATE_LIMITED', 'Too many requests for this API key', {
        retry_after_seconds: admitted.retryAfterSeconds,
      });
    }
    if (!workspace) {
      throw new DomainError('WORKSPACE_NOT_FOUND', 'The workspace of this API key does not exist');
    }
    if (workspace.status !== 'ACTIVE') {
      throw new DomainError('WORKSPACE_INACTIVE', 'This workspace is inactive');
    }
    return {
      workspaceId: workspace.id,
      apiKeyId: key.id,
      keyId: key.keyId,
      side: keySide(key),
      scopes: scopesOf(key),
      // Copies: the key may be a copy kept for later requests, which nothing the request does may change.
      restrictions: { allowedIps: [...key.allowedIps], expiresAt: key.expiresAt === null ? null : new Date(key.expiresAt.getTime()) },
    };
  }
}

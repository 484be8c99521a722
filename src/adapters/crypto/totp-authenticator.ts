// Authenticator over otplib (ADR 0033): RFC 6238 TOTP, SHA-1, 30-second
// steps, 6 digits, one step either side of now; a step already used (or an
// earlier one) never matches again, so each code is accepted once.
import { generateSecret, generateURI, verify } from 'otplib';
import type { Authenticator } from '../../domain/members/ports.js';

const PERIOD = 30;

export class TotpAuthenticator implements Authenticator {
  constructor(private readonly issuer = 'Wallet service') {}

  newSecret(): string {
    return generateSecret();
  }

  enrolmentUri(secret: string, account: string): string {
    return generateURI({ issuer: this.issuer, label: account, secret, period: PERIOD, digits: 6, algorithm: 'sha1' });
  }

  async verify(secret: string, code: string, now: Date, afterStep: number | null): Promise<number | null> {
    if (!/^\d{6}$/.test(code)) return null;
    const result = await verify({
      secret,
      token: code,
      epoch: Math.floor(now.getTime() / 1000),
      epochTolerance: PERIOD,
      period: PERIOD,
      ...(afterStep === null ? {} : { afterTimeStep: afterStep }),
    });
    // The TOTP strategy's result carries the step matched (the union's HOTP half does not).
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  }
}

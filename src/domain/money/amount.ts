// Amount: a quantity of one asset in integer base units of the API precision
// (docs/api.md#amounts: 6 places for stablecoins, 18 for ETH and BNB). Never a
// JavaScript number: parsed from decimal strings, printed with exactly the
// asset's places, converted to and from on-chain units (USDT_BSC has 18 on
// chain, 6 here).
import { DomainError } from '../errors.js';
import { ASSET_SPECS, type Asset } from './networks.js';

/** Longest decimal string looked at; anything longer is refused before any parsing. */
const MAX_INPUT_LENGTH = 64;
/** Digits before the point: keeps every amount far inside NUMERIC(78,0). */
const MAX_INTEGER_DIGITS = 30;
const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

const pow10 = (n: number): bigint => 10n ** BigInt(n);

const invalid = (field: string, message: string): DomainError =>
  new DomainError('VALIDATION_ERROR', `${field}: ${message}`, [{ path: field, message }]);

/** Base units as a decimal string with exactly `places` places, e.g. (12500000n, 6) → '12.500000'. */
export function formatPlaces(units: bigint, places: number): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const digits = abs.toString().padStart(places + 1, '0');
  const out = places === 0 ? digits : `${digits.slice(0, digits.length - places)}.${digits.slice(digits.length - places)}`;
  return negative ? `-${out}` : out;
}

export class Amount {
  private constructor(
    readonly asset: Asset,
    /** Base units of the API precision. */
    readonly units: bigint,
  ) {}

  static ofUnits(asset: Asset, units: bigint): Amount {
    return new Amount(asset, units);
  }

  static zero(asset: Asset): Amount {
    return new Amount(asset, 0n);
  }

  /**
   * Parses a client's decimal string: a string, no sign, no exponent, no
   * whitespace, at most the asset's places; zero is refused unless allowed.
   */
  static parse(input: unknown, asset: Asset, field = 'amount', opts: { allowZero?: boolean } = {}): Amount {
    if (typeof input !== 'string') throw invalid(field, 'must be a decimal string');
    if (input.length > MAX_INPUT_LENGTH) throw invalid(field, 'is too long');
    const m = DECIMAL.exec(input);
    if (!m) throw invalid(field, 'must be a plain positive decimal such as "12.50"');
    const [, whole, frac = ''] = m as unknown as [string, string, string | undefined];
    const places = ASSET_SPECS[asset].apiDecimals;
    if (frac.length > places) throw invalid(field, `has more than ${places} decimal places for ${asset}`);
    if (whole.length > MAX_INTEGER_DIGITS) throw invalid(field, 'is too large');
    const units = BigInt(whole) * pow10(places) + BigInt(frac.padEnd(places, '0') || '0');
    if (units === 0n && !opts.allowZero) throw invalid(field, 'must be greater than zero');
    return new Amount(asset, units);
  }

  /** From on-chain units, rounding down the sub-precision dust (docs/api.md#amounts). */
  static fromChainUnits(asset: Asset, chainUnits: bigint): Amount {
    const { apiDecimals, chainDecimals } = ASSET_SPECS[asset];
    return new Amount(asset, chainUnits / pow10(chainDecimals - apiDecimals));
  }

  toChainUnits(): bigint {
    const { apiDecimals, chainDecimals } = ASSET_SPECS[this.asset];
    return this.units * pow10(chainDecimals - apiDecimals);
  }

  /** Exactly the asset's API places, e.g. '12.500000'. */
  toString(): string {
    return formatPlaces(this.units, ASSET_SPECS[this.asset].apiDecimals);
  }

  toJSON(): string {
    return this.toString();
  }

  plus(other: Amount): Amount {
    return new Amount(this.asset, this.units + this.same(other).units);
  }

  minus(other: Amount): Amount {
    return new Amount(this.asset, this.units - this.same(other).units);
  }

  isZero(): boolean {
    return this.units === 0n;
  }

  isPositive(): boolean {
    return this.units > 0n;
  }

  lt(other: Amount): boolean {
    return this.units < this.same(other).units;
  }

  gte(other: Amount): boolean {
    return this.units >= this.same(other).units;
  }

  max(other: Amount): Amount {
    return this.units >= this.same(other).units ? this : other;
  }

  equals(other: Amount): boolean {
    return this.asset === other.asset && this.units === other.units;
  }

  private same(other: Amount): Amount {
    if (other.asset !== this.asset) throw new Error(`asset mismatch: ${this.asset} and ${other.asset}`);
    return other;
  }
}

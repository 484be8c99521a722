// What every TRON transaction the service signs goes through (ADR 0027): the
// node builds it, and it is signed only once its decoded raw_data_hex says
// exactly what was asked (one contract of the expected type, the owner, the
// fields the caller checks, no memo or script, an expiration in the near
// future), its txID is the sha256 of those bytes and its JSON encodes to the
// very same bytes (the JSON is what is broadcast). Transfers (tron-chain.ts)
// and the Stake 2.0 transactions (tron-staking.ts) share it.
import { createHash } from 'node:crypto';
import { ChainUnavailableError } from '../../domain/chains/chain-port.js';
import type { Network } from '../../domain/money/networks.js';
import type { DigestSignature, SignDigest, SignedTransaction } from '../../domain/transfers/ports.js';

/** tronweb's protobuf codec, loaded with the first signature: a process that signs nothing on TRON (the api, ops) never loads it. */
interface TronCodec {
  txJsonToPb: (tx: { raw_data: Record<string, unknown>; visible: boolean }) => unknown;
  txPbToRawDataHex: (pb: unknown) => string;
  deserializeTransaction: (type: string, rawHex: string) => unknown;
  /** java-tron's Transaction.raw protobuf, which tronweb registers on globalThis: the contracts counted in the bytes themselves. */
  RawTransaction: { deserializeBinary(b: Uint8Array): { getContractList(): unknown[] } };
}
let codec: Promise<TronCodec> | undefined;
const tronCodec = (): Promise<TronCodec> =>
  (codec ??= import('tronweb').then(({ utils }) => ({
    txJsonToPb: utils.transaction.txJsonToPb as TronCodec['txJsonToPb'],
    txPbToRawDataHex: utils.transaction.txPbToRawDataHex as TronCodec['txPbToRawDataHex'],
    deserializeTransaction: utils.deserializeTx.deserializeTransaction as TronCodec['deserializeTransaction'],
    RawTransaction: (globalThis as unknown as { TronWebProto: { Transaction: { raw: TronCodec['RawTransaction'] } } }).TronWebProto.Transaction.raw,
  })));

/**
 * The node's own transactions expire a minute after its head block; one
 * expiring later than this is refused before signing (a node could otherwise
 * hold back the bytes and stall the transfer until then).
 */
const MAX_EXPIRATION_MS = 10 * 60_000;

/** The contract types the service signs. */
export type TronContractType =
  | 'TransferContract'
  | 'TriggerSmartContract'
  | 'FreezeBalanceV2Contract'
  | 'UnfreezeBalanceV2Contract'
  | 'DelegateResourceContract'
  | 'UnDelegateResourceContract'
  | 'WithdrawExpireUnfreezeContract';

/** What a node answers a build request with. */
export interface BuiltTransaction {
  txID?: unknown;
  raw_data?: unknown;
  raw_data_hex?: unknown;
}

const sha256Hex = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
const word = (hex: string) => hex.padStart(64, '0');

/**
 * tronweb's protobuf codec (txJsonToPb, deserializeTransaction) carries int64 fields as JS numbers, exact only
 * within ±(2^53 − 1). Amounts are bigints everywhere else; these two are the only crossings of that library.
 */
const CODEC_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** An int64 the decoder gave as a JS number, as a bigint; null when it may not be exact. */
export const exactInt = (v: unknown): bigint | null => (typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : null);

/** An int64 as the encoder must be given it, or null when it could not carry it exactly. */
export const codecInt = (v: bigint): number | null => (v >= -CODEC_SAFE && v <= CODEC_SAFE ? Number(v) : null);

export const lower = (v: unknown): string => (typeof v === 'string' ? v.toLowerCase() : '');

/** r ‖ s ‖ v with v = 27 + recovery, as TRON writes signatures (65 bytes, hex). */
const signatureHex = (sig: DigestSignature): string => word(sig.r.toString(16)) + word(sig.s.toString(16)) + (27 + sig.recovery).toString(16);

/** What the node built, checked against what was asked before anything is signed. */
function verifiedTransaction(
  { txJsonToPb, txPbToRawDataHex, deserializeTransaction, RawTransaction }: TronCodec,
  network: Network,
  built: BuiltTransaction,
  type: TronContractType,
  owner: string,
  expect: (value: Record<string, unknown>, raw: Record<string, unknown>) => boolean,
): { txID: string; rawData: Record<string, unknown>; rawHex: string; expiration: number } {
  const refuse = (why: string): never => {
    throw new ChainUnavailableError(network, 'bad_response', `the node built a transaction that ${why}: not signed`);
  };
  const rawHex = typeof built.raw_data_hex === 'string' && /^([0-9a-fA-F]{2})+$/.test(built.raw_data_hex) ? built.raw_data_hex.toLowerCase() : refuse('has no raw_data_hex');
  const rawData = built.raw_data && typeof built.raw_data === 'object' ? (built.raw_data as Record<string, unknown>) : refuse('has no raw_data');
  const txID = sha256Hex(rawHex);
  if (typeof built.txID !== 'string' || built.txID.toLowerCase() !== txID) refuse('has a txID other than the sha256 of its bytes');
  let decoded: Record<string, unknown> & { contract?: unknown[] };
  let jsonHex: string;
  try {
    decoded = deserializeTransaction(type, rawHex) as typeof decoded;
    // Broadcast as JSON: the JSON must encode to the very bytes checked here and signed.
    jsonHex = txPbToRawDataHex(txJsonToPb({ raw_data: rawData, visible: false })).toLowerCase();
  } catch (err) {
    return refuse(`cannot be decoded (${(err as Error).message})`);
  }
  if (jsonHex !== rawHex) refuse('says something else in its JSON than in its bytes');
  // tronweb's decoder shows the first contract only: the count comes from the bytes.
  let count: number;
  try {
    count = RawTransaction.deserializeBinary(Buffer.from(rawHex, 'hex')).getContractList().length;
  } catch (err) {
    return refuse(`cannot be decoded (${(err as Error).message})`);
  }
  const contract = (decoded.contract ?? [])[0] as { parameter?: { value?: Record<string, unknown>; type_url?: string }; Permission_id?: number } | undefined;
  const value = contract?.parameter?.value;
  const shown = Array.isArray(rawData.contract) ? rawData.contract.length : 0;
  if (count !== 1 || shown !== 1 || !value || contract.Permission_id) refuse('is not a single contract of the owner');
  if (contract!.parameter!.type_url !== `type.googleapis.com/protocol.${type}`) refuse('names another contract type');
  if (lower(value!.owner_address) !== owner) refuse('has another owner');
  if (decoded.data || decoded.scripts) refuse('carries a memo or a script');
  if (!expect(value!, decoded)) refuse(`differs from the ${type === 'TransferContract' || type === 'TriggerSmartContract' ? 'transfer' : 'stake operation'} asked for`);
  const expiration = decoded.expiration;
  if (typeof expiration !== 'number' || !Number.isSafeInteger(expiration) || expiration > Date.now() + MAX_EXPIRATION_MS) refuse('expires too late');
  return { txID, rawData, rawHex, expiration: expiration as number };
}

/** Checks what the node built, then signs its txID: the JSON to broadcast, its txid and expiration. */
export async function signVerified(
  network: Network,
  built: BuiltTransaction,
  type: TronContractType,
  owner: string,
  expect: (value: Record<string, unknown>, raw: Record<string, unknown>) => boolean,
  sign: SignDigest,
): Promise<SignedTransaction> {
  const { txID, rawData, rawHex, expiration } = verifiedTransaction(await tronCodec(), network, built, type, owner, expect);
  const signature = signatureHex(await sign(Uint8Array.from(Buffer.from(txID, 'hex'))));
  const raw = JSON.stringify({ visible: false, txID, raw_data: rawData, raw_data_hex: rawHex, signature: [signature] });
  return { txid: txID, raw, expiresAt: expiration };
}

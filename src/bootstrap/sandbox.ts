// `npm run sandbox -- send --chain ETH --asset USDT_ETH --to ADDRESS --amount 25`:
// a real on-chain transfer on the running sandbox's local chains, from the
// outside account of DATA_DIR/sandbox.json (not the service's), so an
// integrator can try deposits by hand, on ETH, BSC and TRON. The amount of a
// token is minted to the outside account before each transfer (the sandbox
// tokens' mint is public), so parallel sends never take each other's tokens.
// `--from cold` sends from the sandbox's cold storage account instead (a
// refill of the treasury, issue 31): what it holds, nothing minted.
// `npm run sandbox -- balance --chain ETH --asset USDT_ETH [--address A | --of cold]`:
// what an address (the outside account by default) holds, read from the
// node, e.g. to see that a withdrawal arrived.
// `npm run sandbox -- address --chain ETH [--of cold]`: the outside account's
// address (or cold storage's), e.g. as a first withdrawal's destination.
import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, http, parseAbi, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { EvmChainPort } from '../adapters/chains/evm-chain.js';
import { TronChainPort } from '../adapters/chains/tron-chain.js';
import { readSandboxFile, sandboxFilePath } from '../adapters/sandbox/sandbox-file.js';
import { parseSandboxCommandLine } from '../adapters/sandbox/sandbox-cli.js';
import { Amount } from '../domain/money/amount.js';
import { ASSET_SPECS, type Asset } from '../domain/money/networks.js';

const ERC20 = parseAbi([
  'function mint(address to, uint256 value) returns (bool)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
]);

function fail(message: string, code = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

// Help and every check of the flags come first: they need neither DATA_DIR nor a node.
const line = parseSandboxCommandLine(process.argv.slice(2));
if (line.kind === 'help') {
  process.stdout.write(`${line.text}\n`);
  process.exit(0);
}
if (line.kind === 'refused') fail(`${line.message}\n\n${line.usage}`, 2);
const { command, chain, network, asset, amount, json } = line;
const recipient = line.address;

const dataDir = process.env.DATA_DIR || '.data';
const file = readSandboxFile(dataDir);
if (!file) fail(`DATA_DIR: no ${sandboxFilePath(dataDir)}; run this with the DATA_DIR of your running npm start (DATA_DIR=… npm run sandbox -- …), or start the sandbox first`);
const net = file.networks[network];
if (!net) fail(`${network} has no local chain in ${sandboxFilePath(dataDir)} (its node is configured elsewhere)`);

const units = amount.toChainUnits();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Who sends (`--from`), or whose balance is read (`--of`): the outside account, or the cold storage account. */
const whose = line.whose;
const sender = whose === 'cold' ? net.cold_account : net.outside_account;
if (!sender) fail(`${sandboxFilePath(dataDir)} has no cold account for ${network}: restart npm start once to add it`);
if (command === 'address') {
  process.stdout.write(json ? `${JSON.stringify({ chain, network, of: whose, address: sender!.address })}\n` : `${sender!.address}\n`);
  process.exit(0);
}
/** Cold storage sends what it holds (a refill); the outside account mints what it sends. */
const mints = whose === 'outside';

/** EVM: viem from the outside account; a nonce taken by a parallel `send` is retried with the next one. */
async function sendEvm(): Promise<{ from: string; txid: string; block: number }> {
  const account = privateKeyToAccount(sender!.private_key as Hex);
  const viemChain = { id: net!.chain_id ?? 0, name: network, nativeCurrency: { name: chain, symbol: chain, decimals: 18 }, rpcUrls: { default: { http: [net!.rpc_url] } } };
  const transport = http(net!.rpc_url, { retryCount: 0, timeout: 10_000 });
  const pub = createPublicClient({ transport, cacheTime: 0 });
  const wallet = createWalletClient({ account, transport, chain: viemChain });
  const nonceClash = /nonce too low|already known|replacement transaction underpriced|nonce.*(already|lower)/i;
  const retrying = async (send: () => Promise<Hex>): Promise<Hex> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await send();
      } catch (err) {
        const text = `${(err as { shortMessage?: string }).shortMessage ?? ''} ${(err as { details?: string }).details ?? ''} ${(err as Error).message}`;
        if (attempt >= 8 || !nonceClash.test(text)) throw err;
        await sleep(100 + Math.random() * 400);
      }
    }
  };
  let txid: Hex;
  if (ASSET_SPECS[asset].native) {
    txid = await exclusively(() => retrying(() => wallet.sendTransaction({ to: recipient as Address, value: units })));
  } else {
    const token = net!.tokens[asset] as Address | undefined;
    if (!token) fail(`${asset} has no contract in ${sandboxFilePath(dataDir)}`);
    if (mints) {
      const minted = await exclusively(() => retrying(() => wallet.writeContract({ address: token, abi: ERC20, functionName: 'mint', args: [account.address, units] })));
      await pub.waitForTransactionReceipt({ hash: minted, pollingInterval: 200, timeout: 30_000 });
    }
    txid = await exclusively(() => retrying(() => wallet.writeContract({ address: token, abi: ERC20, functionName: 'transfer', args: [recipient as Address, units] })));
  }
  const receipt = await pub.waitForTransactionReceipt({ hash: txid, pollingInterval: 200, timeout: 30_000 });
  if (receipt.status !== 'success') fail(`the transfer ${txid} reverted`);
  return { from: account.address, txid, block: Number(receipt.blockNumber) };
}

/** TRON: tronweb against the stand-in's HTTP API, built by the node, signed here, broadcast. */
async function sendTron(): Promise<{ from: string; txid: string; block: number }> {
  const { TronWeb } = await import('tronweb'); // loaded for a TRON send only
  const tw = new TronWeb({ fullHost: net!.rpc_url, privateKey: sender!.private_key });
  const from = sender!.address;
  const token = net!.tokens[asset];
  if (!token) fail(`${asset} has no contract in ${sandboxFilePath(dataDir)}`);
  const call = async (fn: string, params: { type: string; value: string }[]) => {
    // Built and broadcast one at a time (two identical calls built in the same instant would be one transaction).
    const [built, sent] = await exclusively(async () => {
      const b = await tw.transactionBuilder.triggerSmartContract(token, fn, { feeLimit: 100_000_000 }, params, from);
      return [b, await tw.trx.sendRawTransaction(await tw.trx.sign(b.transaction))] as const;
    });
    if (!sent.result) throw new Error(`the node refused the transaction: ${(sent as { code?: string }).code ?? 'unknown'} ${Buffer.from(String((sent as { message?: string }).message ?? ''), 'hex').toString()}`);
    for (let i = 0; i < 150; i++) {
      const info = (await tw.trx.getTransactionInfo(built.transaction.txID)) as { blockNumber?: number; receipt?: { result?: string } };
      if (info.blockNumber !== undefined) {
        if (info.receipt?.result !== 'SUCCESS') fail(`the transfer ${built.transaction.txID} reverted`);
        return { txid: built.transaction.txID, block: info.blockNumber };
      }
      await sleep(200);
    }
    throw new Error(`${built.transaction.txID} was not included within 30 s`);
  };
  if (mints) await call('mint(address,uint256)', [{ type: 'address', value: from }, { type: 'uint256', value: units.toString() }]);
  const sent = await call('transfer(address,uint256)', [{ type: 'address', value: recipient! }, { type: 'uint256', value: units.toString() }]);
  return { from, ...sent };
}

/**
 * One submission at a time per network from the outside account, across processes: two sends that
 * picked the same nonce would make the node replace one transaction by the other. Only the submission
 * is held (the next one's nonce counts the pending one); the wait for its block is not, so parallel
 * sends land in the same blocks. A lock file older than a minute is left by a killed send and is taken over.
 */
async function exclusively<T>(fn: () => Promise<T>): Promise<T> {
  const lock = join(dataDir, 'chains', `${network.toLowerCase()}.send.lock`);
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > 60_000) rmSync(lock, { force: true });
      } catch {
        /* released meanwhile */
      }
      await sleep(50 + Math.random() * 100);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** What `holder` holds of the asset, read from the node, in the asset's whole units. */
async function balanceOf(holder: string): Promise<Amount> {
  const contracts = net!.tokens as Partial<Record<Asset, string>>;
  const port =
    chain === 'TRON'
      ? new TronChainPort({ network, urls: [net!.rpc_url], contracts, retryCount: 0 })
      : new EvmChainPort({ network, urls: [net!.rpc_url], contracts, retryCount: 0 });
  const units = ASSET_SPECS[asset].native ? await port.nativeBalance(holder) : await port.tokenBalance(asset, holder);
  return Amount.fromChainUnits(asset, units);
}

try {
  if (command === 'balance') {
    const holder = recipient ?? sender!.address;
    const held = await balanceOf(holder);
    const result = { chain, network, asset, address: holder, balance: held.toString(), units: held.toChainUnits().toString() };
    process.stdout.write(json ? `${JSON.stringify(result)}\n` : `${holder} holds ${result.balance} ${asset} on ${network}\n`);
    process.exit(0);
  }
  if (!mints && (await balanceOf(sender!.address)).units < amount.units) {
    fail(`the cold account ${sender!.address} holds ${(await balanceOf(sender!.address)).toString()} ${asset}, less than ${amount.toString()}: it sends only what was forwarded to it`);
  }
  const sent = await (chain === 'TRON' ? sendTron() : sendEvm());
  const result = { chain, network, asset, from: sent.from, to: recipient, amount: amount.toString(), txid: sent.txid, block: sent.block };
  process.stdout.write(json ? `${JSON.stringify(result)}\n` : `sent ${result.amount} ${asset} to ${recipient} on ${network}: ${sent.txid} (block ${result.block})\n`);
  process.exit(0);
} catch (err) {
  const message = (err as { shortMessage?: string; message?: string }).shortMessage ?? (err as Error).message;
  const text = `${message} ${(err as { details?: string }).details ?? ''} ${String((err as { cause?: unknown }).cause ?? '')}`;
  const unreachable = /fetch failed|ECONNREFUSED|HTTP request failed|socket hang up|ETIMEDOUT|Unable to get params|Network Error|unreachable|no connection/i.test(text);
  fail(`the ${command === 'send' ? 'transfer' : 'balance read'} failed: ${message.split('\n')[0]}${unreachable ? ` (is the sandbox running? nothing answers at ${net.rpc_url})` : ''}`);
}

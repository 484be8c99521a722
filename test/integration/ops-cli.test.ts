// The ops and sandbox CLIs as a person meets them, run as processes: --help on
// every command and group exits 0 with its usage on stdout and starts no
// database; a bad flag is one line then the command's own usage, exit 2; a
// bare chain (--chain eth) is the network of the mode.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPS_COMMANDS } from '../../src/adapters/cli/ops-commands.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { opsEnv, runEntry } from '../support/processes.js';

/** No database and a DATA_DIR without a sandbox: anything past the command line would fail to start, exit 1. */
const bare = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'wallet-ops-cli-')), LOG_LEVEL: 'silent' };
  delete env.DATABASE_URL;
  delete env.NODE_ENV;
  return env;
};
const ops = (args: string[], env = bare()) => runEntry('src/bootstrap/ops.ts', env, args);
const sandbox = (args: string[]) => runEntry('src/bootstrap/sandbox.ts', bare(), args);

/** Runs `fn` over `items`, `width` at a time: one process per command, without starving a 2-core machine. */
async function inBatches<T, R>(items: T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map(fn))));
  return out;
}

describe('ops --help', () => {
  it('answers a command of every group with its own usage on stdout, exit 0, without a database', async () => {
    // One process per group (each costs a Node start-up); every command's help text is checked in-process by
    // test/unit/cli/command-help.test.ts, through the same function the process calls.
    const firstOfGroup = OPS_COMMANDS.filter((c, i) => OPS_COMMANDS.findIndex((o) => o.path[0] === c.path[0]) === i);
    const results = await inBatches(firstOfGroup, 3, async (c) => ({ c, r: await ops([...c.path, c === OPS_COMMANDS[0] ? '-h' : '--help']) }));
    for (const { c, r } of results) {
      const name = c.path.join(' ');
      expect([r.code, r.stderr], name).toEqual([0, '']);
      expect(r.stdout, name).toMatch(new RegExp(`^Usage: npm run ops -- ${name}`));
      for (const flag of Object.keys(c.flags)) expect(r.stdout, `${name} --${flag}`).toContain(`  --${flag}`);
    }
  }, 120_000);

  it('answers bare, a group and help <command> with the list, exit 0', async () => {
    const [none, help, h, group, word] = await inBatches([[], ['--help'], ['-h', '--json'], ['payouts', '--help'], ['help', 'workspace', 'create']], 3, (a) => ops(a));
    for (const r of [none, help, h]) {
      expect([r!.code, r!.stderr]).toEqual([0, '']);
      expect(r!.stdout).toMatch(/^Usage: npm run ops -- <command> \[--flags\] \[--json\]\n\n {2}workspace create /);
    }
    expect([group!.code, group!.stdout.split('\n').filter((l) => l.startsWith('  ')).map((l) => l.trim().split(/\s{2,}/)[0])]).toEqual([0, ['payouts holds', 'payouts resume']]);
    expect([word!.code, word!.stdout.split('\n')[0]]).toEqual([0, 'Usage: npm run ops -- workspace create --name NAME [--contact-email E-MAIL] [--json]']);
  }, 120_000);
});

describe('a bad ops command line', () => {
  it('is one line naming the problem then the usage of that command, exit 2, before any database is looked for', async () => {
    const [flag, value, json, unknown] = await inBatches(
      [['workspace', 'create', '--nme', 'Acme'], ['sweep', 'policy', 'set', '--chain', 'ETHER', '--asset', 'USDT_ETH', '--minimum', '5'], ['workspace', 'create', '--nme', 'Acme', '--json'], ['workspace', 'rename']],
      2,
      (a) => ops(a),
    );
    expect([flag!.code, flag!.stdout]).toEqual([2, '']);
    const lines = flag!.stderr.split('\n');
    expect(lines.slice(0, 3)).toEqual(["error: Unknown option '--nme'", '', 'Usage: npm run ops -- workspace create --name NAME [--contact-email E-MAIL] [--json]']);
    expect(flag!.stderr).not.toMatch(/sweep policy|key issue/);
    expect([value!.code, value!.stderr.split('\n')[0]]).toEqual([
      2,
      'error: --chain: unknown network "ETHER": give TRON, BSC, ETH (the testnet here) or a network: TRON_MAINNET, TRON_TESTNET, BSC_MAINNET, BSC_TESTNET, ETH_MAINNET, ETH_TESTNET; any case',
    ]);
    expect(value!.stderr).toMatch(/\n\nUsage: npm run ops -- sweep policy set /);
    // --json keeps its contract: one object on stdout, nothing on stderr.
    expect([json!.code, JSON.parse(json!.stdout), json!.stderr]).toEqual([2, { error: "Unknown option '--nme'", code: 'VALIDATION_ERROR' }, '']);
    expect([unknown!.code, unknown!.stderr.split('\n')[0]]).toEqual([2, 'error: unknown command "workspace rename"']);
    expect(unknown!.stderr).toMatch(/ {2}workspace create /);
    expect(unknown!.stderr).not.toMatch(/ledger check/);
  }, 120_000);
});

describe('--chain spellings', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  const policy = async (env: NodeJS.ProcessEnv, ...args: string[]) => {
    const r = await ops(['sweep', 'policy', ...args, '--json'], { ...opsEnv(db.url, { DATA_DIR: mkdtempSync(join(tmpdir(), 'wallet-ops-')) }), ...env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };

  it('takes a bare chain as the testnet outside production and the mainnet in production, and any case', async () => {
    expect(await policy({}, 'set', '--chain', 'eth', '--asset', 'USDT_ETH', '--minimum', '7')).toMatchObject({ chain: 'ETH_TESTNET', asset: 'USDT_ETH', minimum: '7.000000' });
    expect(await policy({ NODE_ENV: 'production' }, 'set', '--chain', 'ETH', '--asset', 'USDT_ETH', '--minimum', '9')).toMatchObject({ chain: 'ETH_MAINNET', minimum: '9.000000' });
    expect(await policy({}, 'show', '--chain', 'Eth_Testnet', '--asset', 'USDT_ETH')).toEqual({ policies: [expect.objectContaining({ chain: 'ETH_TESTNET', minimum: '7.000000' })] });
    expect(await policy({}, 'show', '--chain', 'ETH_MAINNET', '--asset', 'USDT_ETH')).toEqual({ policies: [expect.objectContaining({ chain: 'ETH_MAINNET', minimum: '9.000000' })] });
  }, 120_000);
});

describe('sandbox --help and refusals', () => {
  it('answers help for the tool and each command, exit 0, without a sandbox; refuses a mainnet in one line with the usage of the command, exit 2', async () => {
    const [all, send, balance, mainnet] = await inBatches([['--help'], ['send', '--help'], ['balance', '-h'], ['send', '--chain', 'ETH_MAINNET', '--asset', 'ETH', '--to', '0x0', '--amount', '1', '--json']], 2, sandbox);
    expect([all!.code, all!.stdout.split('\n').slice(0, 2)]).toEqual([
      0,
      [
        'Usage: npm run sandbox -- send --chain CHAIN --asset ASSET --to ADDRESS --amount AMOUNT [--from outside|cold] [--json]',
        '       npm run sandbox -- balance --chain CHAIN --asset ASSET [--address ADDRESS] [--of outside|cold] [--json]',
      ],
    ]);
    expect([send!.code, send!.stdout]).toEqual([0, expect.stringMatching(/^Usage: npm run sandbox -- send [^\n]*\n[\s\S]*\n {2}--to ADDRESS +required /)]);
    expect([balance!.code, balance!.stdout]).toEqual([0, expect.stringMatching(/^Usage: npm run sandbox -- balance /)]);
    expect([mainnet!.code, mainnet!.stdout]).toEqual([2, '']);
    expect(mainnet!.stderr.split('\n').slice(0, 3)).toEqual([
      '--chain: ETH_MAINNET is not a testnet: give TRON, BSC, ETH (the testnet here) or a network: TRON_TESTNET, BSC_TESTNET, ETH_TESTNET; any case',
      '',
      'Usage: npm run sandbox -- send --chain CHAIN --asset ASSET --to ADDRESS --amount AMOUNT [--from outside|cold] [--json]',
    ]);
  }, 120_000);
});

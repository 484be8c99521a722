import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCommand } from '../../../src/adapters/cli/command.js';
import { helpFor, runOps } from '../../../src/adapters/cli/run-ops.js';
import { DomainError } from '../../../src/domain/errors.js';

const greet = defineCommand({
  path: ['greet', 'someone'],
  summary: 'says hello',
  flags: { name: { type: 'string' } },
  input: z.object({ name: z.string().min(2) }),
  async run(_ctx, input) {
    if (input.name === 'ghost') throw new DomainError('WORKSPACE_NOT_FOUND', 'No such workspace');
    return { greeting: `hello ${input.name}` };
  },
  describe: (r) => String(r.greeting),
});

async function ops(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runOps([greet], argv, { resolve: () => { throw new Error('unused'); } }, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out, err };
}

describe('the ops command runner', () => {
  it('answers --help, -h and help with the usage (exit 0 in ops.ts), a group\'s own commands when one is named', () => {
    const wave = defineCommand({ path: ['wave', 'hand'], summary: 'waves', flags: {}, input: z.object({}), run: async () => ({}), describe: () => '' });
    for (const argv of [[], ['--help'], ['-h'], ['help'], ['greet', 'someone', '--help']]) expect(helpFor([greet, wave], argv)).toMatch(/^Usage: npm run ops/);
    expect(helpFor([greet, wave], ['wave', '--help'])).not.toMatch(/greet/);
    expect(helpFor([greet, wave], ['help', 'greet'])).toMatch(/greet someone {2}says hello/);
    expect(helpFor([greet, wave], ['greet', 'someone', '-h'])).toMatch(/^Usage: npm run ops -- greet someone --name NAME \[--json\]\n\nsays hello\n\nFlags:\n {2}--name NAME {2}required\n/);
    expect(helpFor([greet, wave], ['help', 'greet', 'someone'])).toBe(helpFor([greet, wave], ['greet', 'someone', '--help']));
    expect(helpFor([greet, wave], ['greet', 'someone'])).toBeNull();
  });

  it('prints the result as one JSON object on stdout with --json, as a line without', async () => {
    expect(await ops('greet', 'someone', '--name', 'ada', '--json')).toEqual({ code: 0, out: ['{"greeting":"hello ada"}'], err: [] });
    expect(await ops('greet', 'someone', '--name', 'ada')).toEqual({ code: 0, out: ['hello ada'], err: [] });
  });

  it('prints failures with --json as one JSON object on stdout too, exit 2', async () => {
    for (const [argv, code] of [
      [['greet', 'someone', '--name', 'ghost', '--json'], 'WORKSPACE_NOT_FOUND'],
      [['greet', 'someone', '--name', 'x', '--json'], 'VALIDATION_ERROR'],
      [['greet', 'someone', '--json', '--surprise'], 'VALIDATION_ERROR'],
      [['greet', 'someone', '--name', 'ada', '--name', 'bob', '--json'], 'VALIDATION_ERROR'], // a repeated flag is refused, not the last one
      [['greet', 'nobody', '--json'], 'VALIDATION_ERROR'],
    ] as const) {
      const r = await ops(...argv);
      expect([r.code, r.err], argv.join(' ')).toEqual([2, []]);
      expect(r.out).toHaveLength(1);
      expect(JSON.parse(r.out[0]!)).toEqual({ error: expect.any(String), code });
    }
  });

  it('names a missing or wrong action as the positional it is, and a value starting with "-" as a value problem', async () => {
    const act = defineCommand({
      path: ['do', 'thing'],
      positionals: ['action'],
      summary: 'acts',
      flags: { count: { type: 'string' } },
      input: z.discriminatedUnion('action', [z.object({ action: z.literal('set'), count: z.string() }), z.object({ action: z.literal('show') })]),
      async run() {
        return {};
      },
    });
    const run = async (...argv: string[]) => {
      const err: string[] = [];
      const code = await runOps([act], argv, { resolve: () => { throw new Error('unused'); } }, { out: () => undefined, err: (s) => err.push(s) });
      return { code, err: err.join('\n') };
    };
    const missing = await run('do', 'thing');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^error: do thing <action>: /);
    expect(missing.err).not.toMatch(/--action/);
    const negative = await run('do', 'thing', 'set', '--count', '-5');
    expect([negative.code, negative.err.split('\n')[0]]).toEqual([2, 'error: --count: must not start with "-" (no amount, count or name here is negative)']);
    expect((await run('do', 'thing', 'set')).err).toMatch(/^error: --count is required \(/);
  });

  it('prints failures without --json as a line on stderr', async () => {
    const r = await ops('greet', 'someone', '--name', 'ghost');
    expect([r.code, r.out, r.err]).toEqual([2, [], ['error: No such workspace']]);
    const unknown = await ops('greet', 'nobody');
    expect([unknown.code, unknown.out]).toEqual([2, []]);
    expect(unknown.err[0]).toMatch(/^error: unknown command "greet nobody"\n\nUsage: npm run ops/);
  });

  it('refuses a bad flag or value in one line followed by the command\'s own usage, not the whole list', async () => {
    const wave = defineCommand({ path: ['wave', 'hand'], summary: 'waves', flags: {}, input: z.object({}), run: async () => ({}) });
    for (const argv of [
      ['greet', 'someone', '--nme', 'ada'],
      ['greet', 'someone', '--name', 'x'],
      ['greet', 'someone'],
      ['greet', 'someone', 'extra'],
    ]) {
      const err: string[] = [];
      const code = await runOps([greet, wave], argv, { resolve: () => { throw new Error('unused'); } }, { out: () => undefined, err: (s) => err.push(s) });
      const [first, blank, ...usage] = err.join('\n').split('\n');
      expect([code, blank], argv.join(' ')).toEqual([2, '']);
      expect(first).toMatch(/^error: \S/);
      expect(usage.join('\n')).toBe(helpFor([greet, wave], ['greet', 'someone', '--help']));
    }
  });

  it('says which flag a use case refused with its usage too, but a refusal of another kind in one line alone', async () => {
    const strict = defineCommand({
      path: ['greet', 'someone'],
      summary: 'says hello',
      flags: { name: { type: 'string' } },
      input: z.object({ name: z.string() }),
      async run(_ctx, input) {
        throw new DomainError(input.name === 'bad' ? 'VALIDATION_ERROR' : 'CONFLICT', `--name: ${input.name} will not do`);
      },
    });
    const run = async (name: string) => {
      const err: string[] = [];
      await runOps([strict], ['greet', 'someone', '--name', name], { resolve: () => { throw new Error('unused'); } }, { out: () => undefined, err: (s) => err.push(s) });
      return err.join('\n');
    };
    expect(await run('bad')).toMatch(/^error: --name: bad will not do\n\nUsage: npm run ops -- greet someone --name NAME/);
    expect(await run('taken')).toBe('error: --name: taken will not do');
  });
});

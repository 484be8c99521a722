// The lint rule that keeps the layers apart must actually fire.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });
const ruleIds = async (code: string, filePath: string) =>
  (await eslint.lintText(code, { filePath }))[0]!.messages.map((m) => m.ruleId);

describe('import boundaries', () => {
  it('refuses adapters, I/O and framework packages in src/domain', async () => {
    for (const code of [
      "import { x } from '../adapters/http/api-app.js';\nexport const y = x;",
      "import express from 'express';\nexport const y = express;",
      "import { readFileSync } from 'node:fs';\nexport const y = readFileSync;",
      "import { MikroORM } from '@mikro-orm/postgresql';\nexport const y = MikroORM;",
    ]) {
      expect(await ruleIds(code, 'src/domain/money/example.ts')).toContain('no-restricted-imports');
    }
  });

  it('refuses adapters in src/application but allows the domain', async () => {
    expect(await ruleIds("import { x } from '../../adapters/jobs/catalogue.js';\nexport const y = x;", 'src/application/a/b.ts')).toContain(
      'no-restricted-imports',
    );
    expect(await ruleIds("import { DomainError } from '../../domain/errors.js';\nexport const y = DomainError;", 'src/application/a/b.ts')).not.toContain(
      'no-restricted-imports',
    );
  });
});

describe('money rule: no floating point in money code', () => {
  it('refuses parseFloat, Number(), Math and unary plus in money code', async () => {
    for (const code of [
      'export const f = (s: string) => parseFloat(s);',
      'export const f = (s: string) => Number(s) * 100;',
      'export const f = (a: number) => Math.round(a);',
      'export const f = (s: string) => +s;',
      'export const f = (a: number) => a.toFixed(2);',
    ]) {
      expect(await ruleIds(code, 'src/domain/fees/example.ts'), code).toContain('no-restricted-syntax');
    }
  });

  it('allows bigint arithmetic there', async () => {
    expect(await ruleIds('export const f = (a: bigint, b: bigint) => (a * b + 999_999n) / 1_000_000n;', 'src/domain/fees/example.ts')).toEqual([]);
  });
});


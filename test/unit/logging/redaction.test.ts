import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { TSX } from '../../support/processes.js';

describe('structured logs', () => {
  it('redact secrets, seeds and keys at the top and up to two levels down', () => {
    const script = `
      const { createLogger } = await import('./src/adapters/logging/logger.ts');
      const log = createLogger({ level: 'info', name: 't' });
      log.info({ secret: 'S1', result: { secret: 'S2', live_key: { secret: 'S3' } }, masterSeed: 'S4', cfg: { encryptionKey: 'S5' } }, 'x');
    `;
    const r = spawnSync(process.execPath, [...TSX, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(0);
    const line = JSON.parse(r.stdout.trim()) as Record<string, unknown>;
    expect(r.stdout).not.toMatch(/S[1-5]/);
    expect(line.secret).toBe('[redacted]');
    expect(line.result).toEqual({ secret: '[redacted]', live_key: { secret: '[redacted]' } });
  });
});

describe('logged database errors', () => {
  it('keep the database message and code, never the statement or its values', async () => {
    const { serializeError } = await import('../../../src/adapters/logging/logger.js');
    const err = Object.assign(
      new Error(`update "customers" set "label" = 'TOPSECRET', "next_index" = next_index - 1 where "id" = 'x' - duplicate key value violates unique constraint "customers_ref_unique"`),
      { code: '23505', constraint: 'customers_ref_unique', sql: "update ... 'TOPSECRET'", params: ['TOPSECRET'] },
    );
    const out = serializeError(err) as Record<string, unknown>;
    expect(JSON.stringify(out)).not.toContain('TOPSECRET');
    expect(out).toMatchObject({ message: 'duplicate key value violates unique constraint "customers_ref_unique"', code: '23505', constraint: 'customers_ref_unique' });
    expect(String(out.stack)).toContain('duplicate key value');
    expect((serializeError(new Error('plain failure')) as { message: string }).message).toBe('plain failure');
  });
});

// The dead-endpoint notice (docs/operations.md#operator-notices) against the
// real database and a real SMTP server: one mail to the workspace contact
// naming the endpoint and how to redeliver what failed; no contact or no
// endpoint, no mail. Without SMTP_URL the sandbox writes the mail under
// DATA_DIR/mail, and production logs it instead of failing.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMailer } from '../../src/adapters/mail/mailer.js';
import { TOKENS } from '../../src/application/tokens.js';
import { SendDeadEndpointNotice } from '../../src/application/webhooks/send-dead-endpoint-notice.js';
import { CreateWorkspace, type CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { SetWorkspaceContact } from '../../src/application/workspaces/set-workspace-contact.js';
import type { Mailer, UnitOfWork } from '../../src/domain/ports.js';
import { freePort } from '../support/free-port.js';
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../support/smtp-server.js';
import { uniqueCall, useTestApi, type TestApi } from '../support/harness.js';

const t = useTestApi();
let api: TestApi;
const PUBLIC = 'https://93.184.216.34/hooks/wallet';
const FROM = 'Wallet service <no-reply@wallet.example>';
const NOW = new Date('2026-03-10T12:00:00Z');

let smtp: TestSmtpServer;
let smtpUrl: string;
let received: ReceivedMail[];

beforeAll(async () => {
  api = t.api;
  smtp = await startSmtpServer();
  smtpUrl = smtp.url;
  received = smtp.received;
});
afterAll(() => smtp.close());
beforeEach(() => {
  received.length = 0;
});

/** A logger whose lines the test can read. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, next) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      next();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

const mailerWith = (opts: { smtpUrl?: string; dataDir?: string; production?: boolean }) =>
  createMailer({ from: FROM, dataDir: opts.dataDir ?? mkdtempSync(join(tmpdir(), 'wallet-mail-')), production: opts.production ?? false, smtpUrl: opts.smtpUrl }, pino({ level: 'silent' }));

const notice = (mailer: Mailer) => new SendDeadEndpointNotice(api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork), mailer, { now: () => NOW });

const workspace = (name: string, contactEmail?: string) => api.infra.container.resolve(CreateWorkspace).execute({ name, contactEmail });

async function endpointOf(ws: CreatedWorkspace): Promise<string> {
  const res = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/webhooks', { url: PUBLIC, events: ['DEPOSIT_SWEPT'] });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** Headers unfolded and the body decoded (quoted-printable or base64), whichever nodemailer chose. */
function readMail(raw: string): { headers: string; text: string } {
  const cut = raw.search(/\r?\n\r?\n/);
  const headers = raw.slice(0, cut).replace(/\r?\n(?=[ \t])/g, '');
  const body = raw.slice(cut).trim();
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
  const text =
    encoding === 'base64'
      ? Buffer.from(body, 'base64').toString('utf8')
      : encoding === 'quoted-printable'
        ? Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8')
        : body;
  return { headers, text: text.replace(/\r\n/g, '\n') };
}

describe('the dead-endpoint notice', () => {
  it('e-mails the workspace contact once, naming the failing endpoint and how to redeliver what failed', async () => {
    const ws = await workspace('noticed', 'ops@acme.example');
    const endpointId = await endpointOf(ws);
    const outcome = await notice(mailerWith({ smtpUrl })).execute({ endpointId, failures: 5 });
    expect(outcome).toEqual({ sent: true, to: 'ops@acme.example' });
    expect(received).toHaveLength(1);
    const mail = received[0]!;
    expect([mail.from, mail.to]).toEqual(['no-reply@wallet.example', ['ops@acme.example']]);
    const { headers, text } = readMail(mail.raw);
    expect(headers).toMatch(/^To: ops@acme\.example$/m);
    expect(headers).toMatch(new RegExp(`^Subject: .*${PUBLIC.replace(/[./]/g, '\\$&')}`, 'm'));
    expect(text).toContain(`5 webhook deliveries to ${PUBLIC}\nfailed permanently within the last 7 days`);
    expect(text).toContain(`Endpoint:  ${endpointId}`);
    expect(text).toContain(`Workspace: ${ws.workspaceId} (noticed)`);
    expect(text).toContain(`GET /v2/webhooks/${endpointId}/deliveries?status=FAILED`);
    expect(text).toContain(`POST /v2/webhooks/${endpointId}/deliveries/redeliver-failed`);
    expect(text).toContain('{"since": "<date-time>"}');
    expect(text).toContain('{"since": "2026-03-03T12:00:00Z"}');
  });

  it('sends nothing while the workspace has no contact e-mail, and to the contact once the operator sets one', async () => {
    const ws = await workspace('quiet');
    const endpointId = await endpointOf(ws);
    const mailer = mailerWith({ smtpUrl });
    expect(await notice(mailer).execute({ endpointId, failures: 5 })).toEqual({ sent: false, reason: 'no_contact_email' });
    expect(received).toEqual([]);
    await api.infra.container.resolve(SetWorkspaceContact).execute({ workspaceId: ws.workspaceId, email: ' late@acme.example ' });
    expect(await notice(mailer).execute({ endpointId, failures: 6 })).toEqual({ sent: true, to: 'late@acme.example' });
    expect(received.map((m) => m.to)).toEqual([['late@acme.example']]);
    expect(readMail(received[0]!.raw).text).toContain(`6 webhook deliveries to ${PUBLIC}`);
  });

  it('sends nothing for an endpoint that was deleted before the job ran', async () => {
    const ws = await workspace('deleted', 'ops@deleted.example');
    const endpointId = await endpointOf(ws);
    expect((await uniqueCall(api.baseUrl, ws.testKey, 'DELETE', `/v2/webhooks/${endpointId}`)).status).toBe(200);
    expect(await notice(mailerWith({ smtpUrl })).execute({ endpointId, failures: 5 })).toEqual({ sent: false, reason: 'endpoint_deleted' });
    expect(received).toEqual([]);
  });

  it('refuses a contact that is not an e-mail address with VALIDATION_ERROR, storing nothing', async () => {
    const ws = await workspace('strict', 'ops@strict.example');
    const set = api.infra.container.resolve(SetWorkspaceContact);
    await expect(set.execute({ workspaceId: ws.workspaceId, email: 'not an address' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(workspace('strict-2', 'ops@')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    const rows = await api.infra.orm.em
      .getConnection()
      .execute<{ name: string; contact_email: string | null }[]>(`select name, contact_email from workspaces where name like 'strict%'`);
    expect(rows).toEqual([{ name: 'strict', contact_email: 'ops@strict.example' }]);
  });

  it('fails when the SMTP server cannot be reached (so the job is retried), without the password of SMTP_URL in the error or the log', async () => {
    const ws = await workspace('unreachable', 'ops@unreachable.example');
    const endpointId = await endpointOf(ws);
    const { logger, lines } = capturedLogger();
    const mailer = createMailer({ smtpUrl: `smtp://notifier:hunter2-secret@127.0.0.1:${await freePort()}`, from: FROM, dataDir: tmpdir(), production: true }, logger);
    const err = await notice(mailer).execute({ endpointId, failures: 5 }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(`${err!.message} ${err!.stack}`).not.toContain('hunter2');
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });

  it('without SMTP_URL outside production writes each notice as an .eml file under DATA_DIR/mail', async () => {
    const ws = await workspace('sandboxed', 'dev@sandbox.example');
    const endpointId = await endpointOf(ws);
    const dataDir = mkdtempSync(join(tmpdir(), 'wallet-data-'));
    const mailer = mailerWith({ dataDir });
    expect(await notice(mailer).execute({ endpointId, failures: 5 })).toEqual({ sent: true, to: 'dev@sandbox.example' });
    await notice(mailer).execute({ endpointId, failures: 7 });
    const files = readdirSync(join(dataDir, 'mail')).sort();
    expect(files).toHaveLength(2);
    for (const f of files) expect(f).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z-[0-9a-f]{8}\.eml$/);
    const first = readMail(readFileSync(join(dataDir, 'mail', files[0]!), 'utf8'));
    expect(first.headers).toMatch(/^To: dev@sandbox\.example$/m);
    expect(first.headers).toMatch(/^From: Wallet service <no-reply@wallet\.example>$/m);
    expect(first.text).toContain(`POST /v2/webhooks/${endpointId}/deliveries/redeliver-failed`);
    expect(readMail(readFileSync(join(dataDir, 'mail', files[1]!), 'utf8')).text).toContain('7 webhook deliveries');
    expect(received).toEqual([]);
  });

  it('in production without SMTP_URL logs a warning carrying the notice instead, and does not fail', async () => {
    const ws = await workspace('unmailed', 'ops@unmailed.example');
    const endpointId = await endpointOf(ws);
    const dataDir = mkdtempSync(join(tmpdir(), 'wallet-data-'));
    const { logger, lines } = capturedLogger();
    const mailer = createMailer({ from: FROM, dataDir, production: true }, logger);
    await notice(mailer).execute({ endpointId, failures: 5 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, msg: 'mail not sent: SMTP_URL is not set', to: 'ops@unmailed.example' });
    expect(String(lines[0]!.text)).toContain(`/v2/webhooks/${endpointId}/deliveries/redeliver-failed`);
    expect(existsSync(join(dataDir, 'mail'))).toBe(false);
    expect(received).toEqual([]);
  });
});

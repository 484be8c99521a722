// The Mailer of operator notices (docs/operations.md#operator-notices): over
// SMTP when SMTP_URL is set; without it, outside production, each mail is
// written as an .eml file under DATA_DIR/mail (the sandbox has no mail
// server); in production without it, a warning in the log stands in for the
// mail (never a confidential one's text: an invitation's one-time link), and
// the send reports it did not go out, because a missing mail server must not
// make the notice job fail and retry forever. The SMTP URL can hold a password: it is never logged.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Mailer } from '../../domain/ports.js';
import type { Logger } from '../logging/logger.js';

export interface MailerOptions {
  smtpUrl?: string | undefined;
  /** The From header, e.g. `Wallet service <no-reply@example.com>`. */
  from: string;
  dataDir: string;
  production: boolean;
}

/** nodemailer, loaded with the first mail: most processes never send one. */
const transportOf = (options: Parameters<typeof import('nodemailer').createTransport>[0]): (() => Promise<Transporter>) => {
  let made: Promise<Transporter> | undefined;
  return () => (made ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(options) as Transporter));
};

/** A send that does not finish in these times fails (and the job that sent it is retried). */
const SMTP_TIMEOUTS_MS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

export function createMailer(opts: MailerOptions, logger: Logger): Mailer {
  if (opts.smtpUrl) return smtpMailer(opts.smtpUrl, opts.from);
  if (!opts.production) return fileMailer(join(opts.dataDir, 'mail'), opts.from, logger);
  return unsentMailer(logger);
}

function smtpMailer(url: string, from: string): Mailer {
  const transport = transportOf({ url, ...SMTP_TIMEOUTS_MS });
  return {
    async send({ to, subject, text }) {
      await (await transport()).sendMail({ from, to, subject, text });
      return true;
    },
  };
}

function fileMailer(dir: string, from: string, logger: Logger): Mailer {
  const transport = transportOf({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      const info = (await (await transport()).sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text })) as { message: Buffer };
      await mkdir(dir, { recursive: true });
      // Sorting the names sorts the mails by time; the random part keeps two mails of one millisecond apart.
      const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
      await writeFile(file, info.message, { flag: 'wx' });
      logger.info({ file, subject: mail.subject }, 'mail written to a file (SMTP_URL is not set)');
      return true;
    },
  };
}

function unsentMailer(logger: Logger): Mailer {
  return {
    async send(mail) {
      // A notice whole, so that the operator can still pass it on by hand; never a confidential mail's text (a one-time link).
      logger.warn({ to: mail.to, subject: mail.subject, ...(mail.confidential ? {} : { text: mail.text }) }, 'mail not sent: SMTP_URL is not set');
      return false;
    },
  };
}

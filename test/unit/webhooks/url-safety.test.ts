// Which webhook URLs the service may call: https, and a host whose every
// address is public (IPv4-mapped forms judged as the IPv4 they map).
import { describe, expect, it } from 'vitest';
import { DnsWebhookUrlGuard } from '../../../src/adapters/webhooks/url-guard.js';
import { isPublicAddress } from '../../../src/domain/webhooks/url-safety.js';

const codeOf = async (p: Promise<unknown>) => p.then(() => 'OK', (e: { code?: string }) => e.code);

describe('webhook URL safety', () => {
  it('calls only public unicast addresses public', () => {
    for (const ip of ['8.8.8.8', '93.184.216.34', '2001:4860:4860::8888', '::ffff:8.8.8.8']) expect(isPublicAddress(ip), ip).toBe(true);
    for (const ip of [
      '127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255',
      '198.18.0.1', '192.0.0.8', '::1', '::', 'fe80::1', 'fc00::1', 'fd12::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1',
      '64:ff9b::a00:1', '2001:db8::1', 'not-an-ip',
    ]) {
      expect(isPublicAddress(ip), ip).toBe(false);
    }
  });

  it('refuses what is not https, carries credentials, names localhost or resolves to any private address; accepts a host that does not resolve yet', async () => {
    const dns: Record<string, string[]> = {
      'hooks.example.com': ['93.184.216.34'],
      'rebind.example.com': ['93.184.216.34', '10.0.0.5'],
      'mapped.example.com': ['::ffff:127.0.0.1'],
      'metadata.example.com': ['169.254.169.254'],
    };
    const guard = new DnsWebhookUrlGuard('public', async (host) => dns[host] ?? []);
    expect(await guard.check('https://hooks.example.com/wallet')).toBe('https://hooks.example.com/wallet');
    expect(await guard.check('https://93.184.216.34:8443/x')).toBe('https://93.184.216.34:8443/x');
    // Not resolving now reaches nothing; every attempt resolves and checks it again.
    expect(await guard.check('https://nowhere.example.com/x')).toBe('https://nowhere.example.com/x');
    for (const url of [
      'http://hooks.example.com/x',
      'https://user:pw@hooks.example.com/x',
      'https://hooks.example.com/x#frag',
      'https://localhost/x',
      'https://api.localhost/x',
      'https://127.0.0.1/',
      'https://[::1]/',
      'https://[::ffff:10.0.0.1]/',
      'https://rebind.example.com/x',
      'https://mapped.example.com/x',
      'https://metadata.example.com/x',
      'ftp://hooks.example.com/x',
      'https://localhost./x',
      'https://LocalHost../x',
      'https://[::127.0.0.1]/',
      'https://[::a9fe:a9fe]/',
      'https://hooks.example.com/#',
      'https://hooks.example.com/?#',
      'not a url',
      // What the URL parser would quietly rewrite into another URL than the one sent.
      'https://hooks.example.com/a\r\nHost: evil',
      'https://hooks.example.com/a\tb',
      'https://hooks.example.com/a b',
      'https:/hooks.example.com/x',
      'https:hooks.example.com/x',
      'https://hooks.example.com\\@127.0.0.1/',
      'https://hooks.example.com:0/',
    ]) {
      expect(await codeOf(guard.check(url)), url).toBe('VALIDATION_ERROR');
    }
  });

  it('lets local receivers through, over http too, only when private receivers are allowed', async () => {
    const guard = new DnsWebhookUrlGuard('private', async () => ['127.0.0.1']);
    expect(await guard.check('http://127.0.0.1:9999/hook')).toBe('http://127.0.0.1:9999/hook');
    expect(await guard.check('https://localhost/hook')).toBe('https://localhost/hook');
    expect(await codeOf(guard.check('ftp://127.0.0.1/'))).toBe('VALIDATION_ERROR');
  });

  it('in the sandbox (loopback reach) calls this machine over http, and nothing else private', async () => {
    const dns: Record<string, string[]> = {
      localhost: ['127.0.0.1', '::1'],
      'hooks.example.com': ['93.184.216.34'],
      'office.example.com': ['10.0.0.7'],
    };
    const guard = new DnsWebhookUrlGuard('loopback', async (host) => dns[host] ?? []);
    for (const url of ['http://127.0.0.1:4000/hooks', 'http://localhost:4000/hooks', 'http://[::1]:4000/hooks', 'http://127.8.9.10/x', 'https://hooks.example.com/x']) {
      expect(await guard.check(url), url).toBe(url);
    }
    for (const url of [
      'http://hooks.example.com/x', // plain http leaves the machine: refused
      'http://10.0.0.7/x',
      'https://10.0.0.7/x',
      'https://office.example.com/x',
      'https://169.254.169.254/latest',
      'http://[::ffff:10.0.0.1]/',
    ]) {
      expect(await codeOf(guard.check(url)), url).toBe('VALIDATION_ERROR');
    }
  });
});

// The Postman collection (examples/postman): committed as `npm run postman`
// generates it, one request per operation of the OpenAPI document, and its
// collection-level pre-request script signs as the API requires. The script
// runs twice: in node's vm with a minimal `pm` and the real crypto-js, against
// every request vector of docs/signing-test-vectors.md; and in Postman's own
// runtime (newman) against a real api, whose 2xx answers prove the signature.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import vm from 'node:vm';
import CryptoJS from 'crypto-js';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/adapters/http/openapi.js';
import { COLLECTION_FILE, SIGNING_SCRIPT, postmanCollection, postmanCollectionJson } from '../../scripts/postman.js';
import { useTestApi } from '../support/harness.js';

const t = useTestApi();

interface Header {
  key: string;
  value: string;
  disabled?: boolean;
}

/** Runs the pre-request script in a fresh context with just what it uses of Postman's sandbox; returns the headers it set and the body it left. */
function runScript(o: { method: string; path: string; body?: string; now: number; headers?: Header[]; vars?: Record<string, string> }) {
  const headers: Header[] = [...(o.headers ?? [])];
  const vars: Record<string, string> = { keyId: 'sk_test_vector', secret: 'Xq8v2Lr5Tn0Yc7Wk3Pz9Hs6Dm1Bf4Gj2Ue8Ra5Nw0Q', ...o.vars };
  const replaceIn = (s: string) => s.replace(/\{\{(\w+)\}\}/g, (_m, k: string) => vars[k] ?? '');
  const body = o.body === undefined ? undefined : { mode: 'raw', raw: o.body, options: { raw: { language: 'json' } }, update(u: { raw: string }) { this.raw = u.raw; } };
  const pm = {
    variables: { get: (k: string) => vars[k], replaceIn },
    request: {
      method: o.method,
      url: { getPathWithQuery: () => o.path },
      body,
      headers: {
        all: () => headers,
        upsert: (h: Header) => {
          const found = headers.find((x) => x.key.toLowerCase() === h.key.toLowerCase());
          if (found) found.value = h.value;
          else headers.push({ ...h });
        },
      },
    },
  };
  const modules: Record<string, unknown> = { 'crypto-js': CryptoJS, uuid: { v4: randomUUID } };
  const require = (name: string) => {
    if (!(name in modules)) throw new Error(`the sandbox has no ${name}`);
    return modules[name];
  };
  vm.runInContext(SIGNING_SCRIPT.join('\n'), vm.createContext({ pm, require, Date: { now: () => o.now } }));
  const get = (key: string) => headers.find((h) => h.key.toLowerCase() === key.toLowerCase() && !h.disabled)?.value;
  return { get, body: body?.raw };
}

/** The request vectors of docs/signing-test-vectors.md, read from the page itself. */
function vectors() {
  const page = readFileSync('docs/signing-test-vectors.md', 'utf8');
  const cell = (section: string, name: string) => new RegExp(`^\\| ${name} \\| \`([^\`]*)\` \\|$`, 'm').exec(section)?.[1];
  return page
    .split(/^## /m)
    .filter((s) => s.startsWith('Vector '))
    .map((section) => ({
      name: section.split('\n')[0]!,
      secret: cell(section, 'secret')!,
      timestamp: cell(section, 'timestamp')!,
      method: cell(section, 'method')!,
      path: cell(section, 'path')!,
      body: /Body \(exact bytes[^\n]*\n\n```json\n([\s\S]*?)\n```/.exec(section)?.[1],
      signature: cell(section, 'signature')!,
    }));
}

describe('the Postman collection', () => {
  it('is committed as npm run postman generates it', () => {
    expect(readFileSync(COLLECTION_FILE, 'utf8')).toBe(postmanCollectionJson());
  });

  it('has one request per operation of the OpenAPI document, under its tag, and the three variables', () => {
    const document = openApiDocument() as unknown as { paths: Record<string, Record<string, { tags: string[] }>> };
    const expected = Object.entries(document.paths)
      .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => `${op.tags[0]} ${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`))
      .sort();
    const collection = postmanCollection();
    const found = collection.item.flatMap((folder) => folder.item.map((r) => `${folder.name} ${r.request.method} /${r.request.url.path.join('/')}`)).sort();
    expect(found).toEqual(expected);
    expect(collection.variable.map((v) => v.key)).toEqual(['baseUrl', 'keyId', 'secret']);
    expect(collection.event).toEqual([{ listen: 'prerequest', script: { type: 'text/javascript', exec: SIGNING_SCRIPT } }]);
  });

  it('signs every request vector of docs/signing-test-vectors.md exactly', () => {
    const all = vectors();
    expect(all.map((v) => v.name.split(':')[0])).toEqual(['Vector 1', 'Vector 2', 'Vector 3', 'Vector 4', 'Vector 5', 'Vector 6']);
    for (const v of all) {
      const signed = runScript({ method: v.method, path: v.path, body: v.body, now: Number(v.timestamp) * 1000 + 999, vars: { secret: v.secret } });
      expect(signed.get('X-Service-Signature'), v.name).toBe(v.signature);
      expect(signed.get('X-Service-Timestamp'), v.name).toBe(v.timestamp);
      expect(signed.get('X-Service-Key'), v.name).toBe('sk_test_vector');
      // A POST gets an Idempotency-Key; nothing else does.
      expect(signed.get('Idempotency-Key') !== undefined, v.name).toBe(v.method === 'POST');
    }
    expect(all.find((v) => v.name.startsWith('Vector 5'))!.body).toContain('東京店');
  });

  it('signs the body as it will be sent, variables filled in, and keeps an Idempotency-Key the request already has', () => {
    const now = 1767225600_000;
    const signed = runScript({ method: 'POST', path: '/v2/customers', body: '{"external_ref":"{{ref}}","label":"Café Zürich – 東京店"}', now, vars: { ref: 'cust-0042' }, headers: [{ key: 'Idempotency-Key', value: 'retry-42' }] });
    // Vector 5's bytes once {{ref}} is filled in: its signature.
    expect(signed.body).toBe('{"external_ref":"cust-0042","label":"Café Zürich – 東京店"}');
    expect(signed.get('X-Service-Signature')).toBe('c6ea509944aa8b3278d9ad6dd0d75a1be3473618227cba75676f7957ce34c3aa');
    expect(signed.get('Idempotency-Key')).toBe('retry-42');
    expect(() => runScript({ method: 'GET', path: '/v2/chains', now, vars: { secret: '' } })).toThrow(/Set the collection variables keyId and secret/);
  });

  it('runs in Postman\'s runtime (newman) against a real api: every signed request answered 2xx', async () => {
    const newman = createRequire(import.meta.url)('newman') as {
      run: (options: object, done: (err: Error | null, summary: NewmanSummary) => void) => void;
    };
    const collection = postmanCollection();
    const pick = (operation: string) => {
      const item = collection.item.flatMap((f) => f.item).find((r) => r.request.description.includes(`operationId: \`${operation}\``));
      if (!item) throw new Error(`no request for ${operation}`);
      return structuredClone(item) as unknown as {
        name: string;
        event?: object[];
        request: { description: string; body?: { raw: string }; url: { query?: Header[]; variable?: { key: string; value: string }[] } };
      };
    };
    const expectStatus = (status: number, save?: string) => ({
      listen: 'test',
      script: {
        type: 'text/javascript',
        exec: [`pm.test('status', () => pm.expect(pm.response.code).to.equal(${status}));`, ...(save ? [`pm.environment.set('${save}', pm.response.json().id);`] : [])],
      },
    });
    const chains = { ...pick('listChains'), event: [expectStatus(200)] };
    const customers = pick('listCustomers');
    customers.request.url.query = customers.request.url.query!.map((q) => (q.key === 'limit' ? { ...q, value: '5', disabled: false } : q));
    customers.event = [expectStatus(200)];
    const create = pick('createCustomer');
    create.request.body!.raw = '{"external_ref":"{{ref}}","label":"Café Zürich – 東京店"}';
    create.event = [expectStatus(201, 'customerId')];
    const read = pick('getCustomer');
    read.request.url.variable = [{ key: 'id', value: '{{customerId}}' }];
    read.event = [expectStatus(200)];
    const update = pick('updateCustomer');
    update.request.url.variable = [{ key: 'id', value: '{{customerId}}' }];
    update.request.body!.raw = '{"label":"renamed {{ref}}"}';
    update.event = [expectStatus(200)];

    const summary = await new Promise<NewmanSummary>((resolve, reject) =>
      newman.run(
        {
          collection: { ...collection, item: [chains, customers, create, read, update] },
          envVar: [
            { key: 'baseUrl', value: t.api.baseUrl },
            { key: 'keyId', value: t.ws.testKey.keyId },
            { key: 'secret', value: t.ws.testKey.secret },
            { key: 'ref', value: `postman-${randomUUID()}` },
          ],
          reporters: [],
        },
        (err, s) => (err ? reject(err) : resolve(s)),
      ),
    );
    const runs = summary.run.executions.map((e) => ({
      name: e.item.name,
      status: e.response?.code,
      url: e.request.url.toString(),
      idempotencyKey: e.request.headers.get('Idempotency-Key'),
    }));
    expect(summary.run.failures.map((f) => `${f.source?.name}: ${f.error.message}`)).toEqual([]);
    expect(runs.map((r) => [r.name, r.status])).toEqual([
      [chains.name, 200],
      [customers.name, 200],
      [create.name, 201],
      [read.name, 200],
      [update.name, 200],
    ]);
    expect(runs[1]!.url).toMatch(/\/v2\/customers\?limit=5$/);
    expect(runs[2]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(runs[3]!.idempotencyKey).toBeUndefined();
    // The bytes sent were the bytes signed: the label arrived as typed, the variable filled in.
    const bodyOf = (i: number) => JSON.parse(summary.run.executions[i]!.response!.stream.toString('utf8')) as { label: string; external_ref: string };
    expect(bodyOf(3).label).toBe('Café Zürich – 東京店');
    expect(bodyOf(4).label).toBe(`renamed ${bodyOf(3).external_ref}`);
    expect(bodyOf(3).external_ref).toMatch(/^postman-/);
  }, 120_000);
});

interface NewmanSummary {
  run: {
    failures: { source?: { name: string }; error: { message: string } }[];
    executions: {
      item: { name: string };
      request: { url: { toString(): string }; headers: { get(key: string): string | undefined } };
      response?: { code: number; stream: Buffer };
    }[];
  };
}

// The docs site under /docs (issue 33): the index, every guide of the
// manifest rendered from docs/*.md with its links rewritten to the site's own
// pages (or to plain text), the reference page with Swagger UI served from
// the swagger-ui-dist package, the security headers, and 404 pages for
// anything else, hostile paths included. The site's builder is also run on
// Markdown written here, to see each rule fire.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { GUIDES, type Guide } from '../../src/adapters/http/docs-site/guides.js';
import { buildDocsSite, packageDocsDir } from '../../src/adapters/http/docs-site/site.js';
import { useTestApi } from '../support/harness.js';

const t = useTestApi();
const get = (path: string) => request(t.api.app).get(path);

const present = GUIDES;
const hrefsOf = (page: string) => [...page.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
const idsOf = (page: string) => new Set([...page.matchAll(/ id="([^"]*)"/g)].map((m) => m[1]!));

describe('the docs site', () => {
  it('finds every file the manifest names in docs/, so every guide is served', () => {
    const files = [...new Set(GUIDES.flatMap((g) => g.parts.map((p) => p.file)))];
    expect(files.filter((f) => !existsSync(join('docs', f)))).toEqual([]);
    const site = buildDocsSite(packageDocsDir());
    expect(site.missing).toEqual([]);
    expect([...site.pages.keys()]).toEqual(GUIDES.map((g) => g.slug));
  });

  it('carries every section of api.md on some guide', () => {
    const site = buildDocsSite(packageDocsDir());
    const ids = [...site.pages.values()].map((p) => p.html).join('\n');
    const sections = readFileSync('docs/api.md', 'utf8').match(/^## .+$/gm)!;
    expect(sections.length).toBeGreaterThan(15);
    for (const heading of sections) expect(ids, heading).toMatch(new RegExp(`<h2 id="[^"]*">${heading.slice(3).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}</h2>`));
  });

  it('serves an index listing the reference and every guide, under a CSP that allows nothing but its own stylesheet', async () => {
    for (const path of ['/docs', '/docs/']) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toBe(
        "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
      );
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(hrefsOf(res.text)).toContain('/docs/reference');
      for (const g of present) expect(res.text, g.slug).toContain(`<a href="/docs/${g.slug}">`);
    }
    const css = await get('/docs/assets/docs.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
  });

  it('serves the reference page with Swagger UI from the package, scripts only from its own origin', async () => {
    const res = await get('/docs/reference');
    expect(res.status).toBe(200);
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self';");
    expect(csp).not.toMatch(/unsafe-eval|https?:|\*/);
    expect(res.text).not.toMatch(/<script>|https?:\/\//);
    expect(res.text).toContain('<script src="/docs/assets/swagger-ui-bundle.js"></script>');
    const bundle = await fetch(`${t.api.baseUrl}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/^application\/javascript/);
    const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    expect(Buffer.from(await bundle.arrayBuffer()).equals(readFileSync(join(dist, 'swagger-ui-bundle.js')))).toBe(true);
    expect((await get('/docs/assets/swagger-ui.css')).status).toBe(200);
    const init = await fetch(`${t.api.baseUrl}/docs/assets/reference.js`);
    expect(init.status).toBe(200);
    const script = await init.text();
    expect(script).toContain("url: '/v2/openapi.json'");
    expect(script).toContain('validatorUrl: null');
  });

  it('serves every guide, each link on it leading to a page and heading the site has or to the live document', async () => {
    const pages = new Map<string, string>();
    for (const g of present) {
      const res = await get(`/docs/${g.slug}`);
      expect(res.status, g.slug).toBe(200);
      expect(res.text).toContain(`<h1>${g.title.replace("'", '&#39;')}</h1>`);
      // No editor's comment shown.
      expect(res.text, g.slug).not.toMatch(/&lt;!--|<!--/);
      pages.set(`/docs/${g.slug}`, res.text);
    }
    pages.set('/docs', (await get('/docs')).text);
    let checked = 0;
    for (const [from, page] of pages) {
      for (const href of hrefsOf(page)) {
        if (href === '/v2/openapi.json' || href === '/docs/reference' || href.startsWith('/docs/assets/')) continue;
        expect(href, `${from}: ${href}`).toMatch(/^(#|\/docs(\/|$))/);
        const [path, anchor] = href.split('#');
        const target = path ? pages.get(path) : page;
        expect(target, `${from}: ${href}`).toBeDefined();
        if (anchor) expect(idsOf(target!).has(anchor), `${from}: ${href}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("shows a whole file's own title once, as the page's title", async () => {
    const page = (await get('/docs/quickstart')).text;
    expect(page.match(/>Quickstart<\/h\d>/g)).toEqual(['>Quickstart</h1>']);
    expect(page).toMatch(/<h2 id="1-start-the-sandbox">1\. Start the sandbox<\/h2>/);
  });

  it('rewrites a cross-link to the guide that carries its section, and a link to what the site does not carry to plain text', async () => {
    // api.md's Idempotency links to #withdrawals of the same file: the withdrawals guide.
    expect((await get('/docs/idempotency')).text).toContain('<a href="/docs/withdrawals#withdrawals">');
    // api.md links to operations.md#workspaces-and-keys, a section the authentication guide carries.
    expect((await get('/docs/api-guide')).text).toContain('<a href="/docs/authentication#workspaces-and-keys">');
    // The committed document is linked as the one the api serves.
    expect((await get('/docs/api-guide')).text).toContain('<a href="/v2/openapi.json">');
    // The README and the ADRs are not on the site: their links are words, not dead links.
    const guide = (await get('/docs/api-guide')).text;
    expect(guide).toContain('The TypeScript client <code>@wallet-service/sdk</code> (<code>src/sdk</code>)');
    for (const page of await Promise.all(present.map((g) => get(`/docs/${g.slug}`)))) {
      expect(hrefsOf(page.text).filter((h) => /\.md|README|adr\/|\.\.\//.test(h))).toEqual([]);
    }
  });

  it('answers 404 pages for unknown guides and hostile paths, never a file or a 500', async () => {
    for (const path of [
      '/docs/no-such-guide',
      '/docs/..%2f..%2fpackage.json',
      '/docs/%2e%2e%2fpackage.json',
      '/docs/assets/..%2f..%2fpackage.json',
      '/docs/assets/index.html',
      '/docs/assets/swagger-ui-bundle.js.map',
      '/docs/%E0%A4%A',
      '/docs/assets/%E0%A4%A',
      '/docs/api.md',
      '/docs/Quickstart',
      '/docs/reference/x',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers['content-type'], path).toMatch(/^text\/html/);
      expect(res.text, path).toContain('No such page');
      expect(res.text, path).not.toContain('"wallet-service"');
    }
    expect((await request(t.api.app).post('/docs/idempotency')).status).toBe(404);
  });
});

describe('building the site from Markdown', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const docs = (files: Record<string, string>): string => {
    const dir = mkdtempSync(join(tmpdir(), 'docs-site-'));
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  };
  const guides: Guide[] = [
    { slug: 'one', title: 'One', summary: 's', parts: [{ file: 'a.md', heading: '## First' }, { file: 'b.md', whole: true }] },
    { slug: 'rest', title: 'Rest', summary: 's', parts: [{ file: 'a.md', rest: true }] },
  ];
  const A = [
    '# A',
    'Intro, see [first](#first) and [b](b.md) and [gone](gone.md#x) and [web](https://example.com/x).',
    'The [SDK](../src/sdk/README.md#installing), [`src/sdk`](../src/sdk/README.md) and [ADRs](adr/).',
    '## First',
    'Text <script>alert(1)</script> and [later](#second).',
    '### Inner',
    '## Second',
    'Back to [inner](#inner) and [b title](b.md#b-title).',
    '## First',
    'A repeated heading.',
  ].join('\n\n');
  const B = '# B title\n\n## First\n\nLink to [a second](a.md#second) and [a repeat](a.md#first-1).\n';

  it('cuts sections by heading, gives each heading an id unique on its page, and rewrites links to where they are on the site', () => {
    const site = buildDocsSite(docs({ 'a.md': A, 'b.md': B }), guides);
    const one = site.pages.get('one')!;
    const rest = site.pages.get('rest')!;
    // a.md's First with its Inner, then b.md whole, its title under the page's h1.
    expect(one.html).toMatch(/^<h2 id="first">First<\/h2>/);
    expect(one.html).toContain('<h3 id="inner">Inner</h3>');
    expect(one.html).toContain('<h2 id="b-title">B title</h2>');
    // b.md's own "First" is the second on the page: named after its file.
    expect(one.html).toContain('<h3 id="b-first">First</h3>');
    expect(one.contents.map((c) => c.id)).toEqual(['first', 'b-title']);
    // The rest of a.md: its title, Second and the repeated First (GitHub's first-1).
    expect(rest.html).toContain('<h2 id="a">A</h2>');
    expect(rest.html).toContain('<h2 id="second">Second</h2>');
    expect(rest.html).toContain('<h2 id="first-1">First</h2>');
    expect(rest.html).not.toContain('Inner');
    expect(rest.html).toContain('<a href="/docs/one#first">first</a>');
    expect(rest.html).toContain('<a href="/docs/one">b</a>');
    expect(rest.html).toContain(' and gone and web.');
    // A file of the repository the site does not carry: its words and its path (unless the words name it).
    expect(rest.html).toContain('The SDK (<code>src/sdk/README.md</code> in the repository), <code>src/sdk</code> and ADRs.');
    expect(one.html).toContain('<a href="/docs/rest#second">later</a>');
    expect(rest.html).toContain('<a href="/docs/one#inner">inner</a>');
    expect(rest.html).toContain('<a href="/docs/one#b-title">b title</a>');
    expect(one.html).toContain('<a href="/docs/rest#second">a second</a>');
    expect(one.html).toContain('<a href="/docs/rest#first-1">a repeat</a>');
    // Raw HTML is shown, never run.
    expect(one.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(one.html).not.toContain('<script>');
  });

  it('leaves out a guide whose file is missing, names the file, and links to it become plain text', () => {
    const site = buildDocsSite(docs({ 'a.md': A }), guides);
    expect(site.missing).toEqual(['b.md']);
    expect([...site.pages.keys()]).toEqual(['rest']);
    // What the left-out guide would have picked stays on the site with the rest of its file.
    const rest = site.pages.get('rest')!.html;
    expect(rest).toContain('Intro, see <a href="/docs/rest#first">first</a> and b and gone and web.');
    expect(rest).toContain('Back to <a href="/docs/rest#inner">inner</a> and b title.');
  });

  it('refuses a manifest that picks a heading the file does not have, or the same section twice', () => {
    const dir = docs({ 'a.md': A, 'b.md': B });
    expect(() => buildDocsSite(dir, [{ slug: 'x', title: 'X', summary: 's', parts: [{ file: 'a.md', heading: '## Third' }] }])).toThrow(/no heading "## Third"/);
    expect(() =>
      buildDocsSite(dir, [
        { slug: 'x', title: 'X', summary: 's', parts: [{ file: 'a.md', heading: '## First' }] },
        { slug: 'y', title: 'Y', summary: 's', parts: [{ file: 'a.md', heading: '### Inner' }] },
      ]),
    ).toThrow(/picked by two guides/);
  });

  it('reads docs/ of the package wherever the code runs from, never from the working directory', () => {
    const root = process.cwd();
    expect(packageDocsDir(join(root, 'src/adapters/http/docs-site'))).toBe(join(root, 'docs'));
    expect(packageDocsDir(join(root, 'dist/src/adapters/http/docs-site'))).toBe(join(root, 'docs'));
    expect(packageDocsDir()).toBe(join(root, 'docs'));
  });
});

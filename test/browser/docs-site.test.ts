// The docs site in a real browser (issue 33): Debian's Chromium driven by
// playwright-core, with every request off this machine refused and counted
// (none may be made: the site works with the network cut). The reference
// page shows every operation of the OpenAPI document and runs "Try it out"
// against its own origin; the index lists every guide; a guide opens with its
// headings, and its cross-links lead to the heading they name on another
// guide. No Content-Security-Policy violation and no script error anywhere.
// Screenshots go to test-results/screenshots/ (git-ignored, CI artifacts).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUIDES } from '../../src/adapters/http/docs-site/guides.js';
import { openApiDocument } from '../../src/adapters/http/openapi.js';
import { useTestApi } from '../support/harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join(process.cwd(), 'test-results', 'screenshots');

const t = useTestApi();
let browser: Browser;
let context: BrowserContext;
/** Requests the pages made to anything but this machine (none may be made). */
const offMachine: string[] = [];
/** CSP violations, failed loads and uncaught script errors, from every page. */
const problems: string[] = [];

const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `docs-${name}.png`), fullPage: true });

async function open(path: string): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) problems.push(`${path}: ${m.text()}`);
  });
  // Every page, stylesheet and script the site loads is there (the API's own answers to "Try it out" aside).
  page.on('response', (r) => {
    if (r.status() >= 400 && !new URL(r.url()).pathname.startsWith('/v2/')) problems.push(`${path}: ${r.status()} ${r.url()}`);
  });
  page.on('pageerror', (e) => problems.push(`${path}: ${e.message}`));
  await page.goto(`${t.api.baseUrl}${path}`);
  return page;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium), or set CHROMIUM_PATH to one`);
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // Every violation of the pages' CSP is reported here (the init script is the browser's, outside the page's CSP).
  await context.exposeBinding('reportCspViolation', ({ page }, what: string) => problems.push(`${page.url()}: CSP violation: ${what}`));
  await context.addInitScript({
    content: "document.addEventListener('securitypolicyviolation', (e) => window.reportCspViolation(e.violatedDirective + ' ' + e.blockedURI));",
  });
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.protocol === 'data:') return route.continue();
    offMachine.push(url.toString());
    return route.abort('internetdisconnected');
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe('the docs site with the network cut', () => {
  it('shows every operation of the OpenAPI document on the reference page, by operationId and summary', async () => {
    const page = await open('/docs/reference');
    const document = openApiDocument();
    const operations = Object.values(document.paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, { operationId: string; summary: string }>).map((op) => ({ id: op.operationId, summary: op.summary })),
    );
    expect(operations.length).toBeGreaterThanOrEqual(30);
    // Swagger UI lays out a document of about a megabyte: a busy machine takes its time.
    await page.locator('.opblock').first().waitFor({ timeout: 150_000 });
    await expect.poll(() => page.locator('.opblock-tag-section .opblock').count(), { timeout: 60_000 }).toBeGreaterThanOrEqual(operations.length);
    const shown = await page.locator('.opblock-summary-operation-id').allTextContents();
    for (const op of operations) {
      expect(shown, op.id).toContain(op.id);
      await expect.poll(() => page.locator('.opblock-summary-description', { hasText: op.summary }).count(), { message: op.summary }).toBeGreaterThan(0);
    }
    // Every group of the document is there with its description.
    for (const tag of document.tags ?? []) await expect.poll(() => page.locator('.opblock-tag', { hasText: tag.name }).count(), { message: tag.name }).toBeGreaterThan(0);
    await shot(page, 'reference');
    await page.close();
  }, 300_000);

  it('runs "Try it out" against the origin that served the page', async () => {
    // Deep-linked: the operation opens expanded. Unsigned, the api answers 401 MISSING_AUTH_HEADERS: it was reached.
    const page = await open('/docs/reference#/Chains/listChains');
    const op = page.locator('#operations-Chains-listChains');
    await op.locator('.try-out__btn').waitFor({ timeout: 150_000 });
    await op.locator('.try-out__btn').click();
    await op.locator('.execute').click();
    await expect.poll(() => op.locator('.request-url pre').textContent(), { timeout: 60_000 }).toBe(`${t.api.baseUrl}/v2/chains`);
    await expect.poll(() => op.locator('.live-responses-table tbody .response-col_status').first().textContent(), { timeout: 60_000 }).toBe('401');
    expect(await op.locator('.live-responses-table tbody .response-col_description').first().textContent()).toContain('MISSING_AUTH_HEADERS');
    await shot(page, 'reference-try-it-out');
    await page.close();
  }, 300_000);

  it('lists the reference and every guide on the index, and a guide opens with its headings and working cross-links', async () => {
    const index = await open('/docs');
    const main = index.getByRole('main');
    await expect.poll(() => main.getByRole('link', { name: 'API reference', exact: true }).count()).toBe(1);
    for (const g of GUIDES) expect(await main.getByRole('link', { name: g.title, exact: true }).count(), g.title).toBe(1);
    await shot(index, 'index');
    // The watcher sees a violation: an inline script on a guide page is refused and reported (then forgotten).
    const before = problems.length;
    await index.addScriptTag({ content: 'document.title = "ran"' }).catch(() => undefined);
    await expect.poll(() => problems.slice(before).some((p) => p.includes('CSP violation: script-src'))).toBe(true);
    expect(await index.title()).not.toBe('ran');
    problems.splice(before);

    await main.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await index.waitForURL('**/docs/webhooks');
    expect(await index.getByRole('heading', { level: 1 }).textContent()).toBe('Webhooks');
    await expect.poll(() => index.getByRole('heading', { name: 'Verifying a delivery' }).isVisible()).toBe(true);
    // The sidebar marks the guide and lists its sections.
    expect(await index.getByRole('navigation', { name: 'Documentation' }).locator('[aria-current=page]').textContent()).toBe('Webhooks');
    await shot(index, 'guide-webhooks');

    // Idempotency links to api.md#withdrawals: on the site, the withdrawals guide at its heading.
    await index.goto(`${t.api.baseUrl}/docs/idempotency`);
    await index.getByRole('main').getByRole('link', { name: 'withdrawals', exact: true }).click();
    await index.waitForURL('**/docs/withdrawals#withdrawals');
    const target = index.locator('h2#withdrawals');
    await expect.poll(() => target.isVisible()).toBe(true);
    expect(await target.textContent()).toBe('Withdrawals');
    await index.setViewportSize({ width: 390, height: 844 });
    await shot(index, 'guide-withdrawals-phone');
    await index.close();
  }, 120_000);

  it('made no request off this machine, and broke no CSP rule', () => {
    expect(offMachine).toEqual([]);
    expect(problems).toEqual([]);
  });
});

// The docs site under /docs (issue 33): the index, the guides rendered from
// docs/*.md, and the API reference (Swagger UI, from the swagger-ui-dist
// package's own files, reading GET /v2/openapi.json). Everything the pages
// load comes from the api itself, so the site works with the network cut.
// Unsigned and read-only, like the document it shows.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import express, { type ErrorRequestHandler, type RequestHandler, type Router } from 'express';
import type { Logger } from '../../logging/logger.js';
import { GUIDES, type Guide } from './guides.js';
import { guidePage, indexPage, notFoundPage, referencePage } from './pages.js';
import { REFERENCE_SCRIPT } from './reference-script.js';
import { buildDocsSite, packageDocsDir, type DocsSite } from './site.js';
import { DOCS_STYLE, REFERENCE_STYLE } from './style.js';

export interface DocsRouterDeps {
  logger: Logger;
  /** Where the Markdown is read from: docs/ of the package unless a test says otherwise. */
  docsDir?: string;
  guides?: readonly Guide[];
}

const FRAME_AND_FORMS = "form-action 'none'; frame-ancestors 'none'; base-uri 'none'";
/** The guides and the index run no script at all. */
const GUIDE_CSP = `default-src 'none'; style-src 'self'; img-src 'self' data:; ${FRAME_AND_FORMS}`;
/**
 * The reference page runs Swagger UI from our own origin and fetches the
 * document (and "Try it out" requests) from it; its stylesheet draws icons as
 * data: images. Nothing inline is needed: its components set styles through
 * the DOM, which style-src does not govern (the browser test watches for any
 * violation).
 */
const REFERENCE_CSP = `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; ${FRAME_AND_FORMS}`;

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', GUIDE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  next();
};

const swaggerUiDir = (): string => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The only files served under /docs/assets: a fixed list, never a path taken from the request. */
function assets(): Map<string, { type: string; body: () => string | Buffer }> {
  const fromPackage = (file: string) => {
    let bytes: Buffer | undefined;
    return () => (bytes ??= readFileSync(join(swaggerUiDir(), file)));
  };
  return new Map([
    ['docs.css', { type: 'text/css', body: () => DOCS_STYLE }],
    ['reference.css', { type: 'text/css', body: () => REFERENCE_STYLE }],
    ['reference.js', { type: 'application/javascript', body: () => REFERENCE_SCRIPT }],
    ['swagger-ui.css', { type: 'text/css', body: fromPackage('swagger-ui.css') }],
    ['swagger-ui-bundle.js', { type: 'application/javascript', body: fromPackage('swagger-ui-bundle.js') }],
  ]);
}

export function docsRouter(deps: DocsRouterDeps): Router {
  const docsDir = deps.docsDir ?? packageDocsDir();
  let site: DocsSite | undefined;
  // Built on first use, once: the files do not change while the process runs.
  const siteOf = (): DocsSite => {
    if (site) return site;
    site = buildDocsSite(docsDir, deps.guides ?? GUIDES);
    if (site.missing.length) deps.logger.warn({ docsDir, missing: site.missing }, 'docs site: guides left out, their files are missing');
    return site;
  };
  const served = (): Guide[] => [...siteOf().pages.values()].map((p) => p.guide);
  const files = assets();

  const router = express.Router({ caseSensitive: true, strict: false });
  router.use(securityHeaders);
  router.get('/assets/:file', (req, res, next) => {
    const asset = files.get(req.params.file);
    if (!asset) return next();
    res.type(asset.type).setHeader('Cache-Control', 'public, max-age=3600');
    res.send(asset.body());
  });
  router.get('/', (_req, res) => {
    res.type('html').send(indexPage(served()));
  });
  router.get('/reference', (_req, res) => {
    res.setHeader('Content-Security-Policy', REFERENCE_CSP);
    res.type('html').send(referencePage());
  });
  router.get('/:slug', (req, res, next) => {
    const page = siteOf().pages.get(req.params.slug);
    if (!page) return next();
    res.type('html').send(guidePage(page, served()));
  });
  router.use((_req, res) => {
    res.status(404).type('html').send(notFoundPage(served()));
  });
  const failed: ErrorRequestHandler = (err: unknown, req, res, _next) => {
    if (res.headersSent) return;
    // A path express could not decode names no page.
    if (err instanceof URIError) return void res.status(404).type('html').send(notFoundPage(served()));
    deps.logger.error({ err, requestId: res.getHeader('X-Request-Id'), method: req.method, route: '/docs' }, 'docs request failed');
    res.status(500).type('text').send(`Internal error (request ${String(res.getHeader('X-Request-Id'))})`);
  };
  router.use(failed);
  return router;
}

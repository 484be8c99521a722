// The docs site's pages: the index, a guide with the sidebar of every page
// and the guide's contents, the reference page that hosts Swagger UI, and
// the not-found page. Markup from html.ts of the dashboard: every value
// escaped unless it is already Html (a guide's body, rendered by marked).
import { html, trusted, type Html } from '../dashboard/html.js';
import type { Guide } from './guides.js';
import { guidePath, type GuidePage } from './site.js';

export const REFERENCE_PATH = '/docs/reference';

function layout(o: { title: string; guides: readonly Guide[]; current?: string; contents?: GuidePage['contents']; body: Html }): string {
  const link = (href: string, label: string, current: boolean) => html`<a href="${href}"${current ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${o.title} · Wallet service docs</title>
<link rel="stylesheet" href="/docs/assets/docs.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header><a class="brand" href="/docs">Wallet service docs</a></header>
<div class="docs">
<nav class="sidebar" aria-label="Documentation">
  <ul><li>${link('/docs', 'Overview', o.current === 'index')}</li><li>${link(REFERENCE_PATH, 'API reference', false)}</li></ul>
  <h2>Guides</h2>
  <ul>${o.guides.map(
    (g) => html`<li>${link(guidePath(g.slug), g.title, g.slug === o.current)}${
      g.slug === o.current && o.contents?.length
        ? html`<ul class="contents" aria-label="On this page">${o.contents.map((c) => html`<li><a href="#${c.id}">${c.text}</a></li>`)}</ul>`
        : ''
    }</li>`,
  )}</ul>
</nav>
<main id="main" tabindex="-1">
<h1>${o.title}</h1>
${o.body}
</main>
</div>
</body>
</html>
`.text;
}

export function indexPage(guides: readonly Guide[]): string {
  return layout({
    title: 'Wallet service documentation',
    guides,
    current: 'index',
    body: html`<article>
<p>The <a href="${REFERENCE_PATH}">API reference</a> lists every operation, its scope, its request and response schemas and the error codes it may answer, from the API's <a href="/v2/openapi.json">OpenAPI document</a>.</p>
<h2>Guides</h2>
<dl class="guides">${guides.map((g) => html`<dt><a href="${guidePath(g.slug)}">${g.title}</a></dt><dd>${g.summary}</dd>`)}</dl>
</article>`,
  });
}

export function guidePage(page: GuidePage, guides: readonly Guide[]): string {
  return layout({ title: page.guide.title, guides, current: page.guide.slug, contents: page.contents, body: html`<article>${trusted(page.html)}</article>` });
}

export function notFoundPage(guides: readonly Guide[]): string {
  return layout({ title: 'Not found', guides, body: html`<article><p>No such page. The <a href="/docs">index</a> lists every guide.</p></article>` });
}

export function referencePage(): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>API reference · Wallet service docs</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/docs/assets/reference.css">
</head>
<body>
<header class="reference-header"><a class="brand" href="/docs">Wallet service docs</a><span>API reference</span></header>
<main id="swagger-ui"><p>Loading the API reference…</p></main>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/reference.js"></script>
</body>
</html>
`.text;
}

// The docs site's guides, built from the manifest (guides.ts) and the
// Markdown under docs/: each guide's sections cut out of their files, their
// headings given ids unique on the page, and every link rewritten to where
// the site carries its target (a guide's page and anchor), to the live
// OpenAPI document, or to plain text when the site does not carry it, so no
// link on the site is dead. A guide whose file is missing is left out, and
// named in `missing`.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import type { Token, Tokens } from 'marked';
import { GUIDES, type Guide, type GuidePart } from './guides.js';
import { MarkdownRenderer, sectionRange, type MarkdownFile, type RenderPlan } from './markdown.js';

export interface GuidePage {
  guide: Guide;
  /** The rendered body, headings from h2 down. */
  html: string;
  /** The page's h2 headings, for its table of contents. */
  contents: { id: string; text: string }[];
}

export interface DocsSite {
  /** The guides served, by slug, in the manifest's order. */
  pages: Map<string, GuidePage>;
  /** Files the manifest names that are not in docs/ (their guides are left out). */
  missing: string[];
}

export const guidePath = (slug: string): string => `/docs/${slug}`;

/** The live document stands in for its committed copy: docs/openapi.json is what /v2/openapi.json serves. */
const SERVED_FILES: Record<string, string> = { 'openapi.json': '/v2/openapi.json' };

interface Range {
  file: MarkdownFile;
  start: number;
  end: number;
  /** What is left of a file (`rest`) keeps its levels, its title under the page's; a picked part starts at h2. */
  rest?: true;
}

/** The ranges of tokens each part picks; `rest` waits until every other pick of its file is known. */
function rangesOf(guides: readonly Guide[], files: Map<string, MarkdownFile>): Map<Guide, Range[]> {
  const picked = new Map<string, [number, number][]>();
  const claim = (file: MarkdownFile, start: number, end: number, what: string) => {
    const taken = picked.get(file.name) ?? [];
    if (taken.some(([s, e]) => start < e && s < end)) throw new Error(`docs/${file.name}: ${what} is picked by two guides`);
    picked.set(file.name, [...taken, [start, end]]);
  };
  const explicit = (part: GuidePart, file: MarkdownFile): Range | null => {
    if ('rest' in part) return null;
    const [start, end] = 'heading' in part ? sectionRange(file, part.heading) : [0, file.tokens.length];
    claim(file, start, end, 'heading' in part ? part.heading : 'the whole file');
    return { file, start, end };
  };
  const byGuide = new Map<Guide, (Range | GuidePart)[]>();
  for (const guide of guides) byGuide.set(guide, guide.parts.map((part) => explicit(part, files.get(part.file)!) ?? part));
  const result = new Map<Guide, Range[]>();
  for (const [guide, parts] of byGuide) {
    result.set(
      guide,
      parts.flatMap((p) => {
        if ('start' in p) return [p];
        const file = files.get(p.file)!;
        const taken = picked.get(file.name) ?? [];
        const ranges: Range[] = [];
        for (let i = 0; i < file.tokens.length; i++) {
          if (taken.some(([s, e]) => i >= s && i < e)) continue;
          const last = ranges.at(-1);
          if (last && last.end === i) last.end = i + 1;
          else ranges.push({ file, start: i, end: i + 1, rest: true });
        }
        return ranges;
      }),
    );
  }
  return result;
}

export function buildDocsSite(docsDir: string, guides: readonly Guide[] = GUIDES): DocsSite {
  const plan: RenderPlan = { headingIds: new WeakMap(), headingDepths: new WeakMap(), linkTargets: new WeakMap(), repositoryPaths: new WeakMap() };
  const markdown = new MarkdownRenderer(plan);
  const names = [...new Set(guides.flatMap((g) => g.parts.map((p) => p.file)))];
  const missing = names.filter((name) => !existsSync(join(docsDir, name)));
  const files = new Map(names.filter((n) => !missing.includes(n)).map((n) => [n, markdown.lex(n, readFileSync(join(docsDir, n), 'utf8'))]));
  const served = guides.filter((g) => g.parts.every((p) => files.has(p.file)));
  const ranges = rangesOf(served, files);

  // A page opening with a whole file whose own title (its h1) is the page's title shows it once: the page's.
  const repeatedTitles = new Map<Guide, Tokens.Heading>();
  for (const guide of served) {
    const first = ranges.get(guide)![0];
    const opening = first?.file.tokens.slice(first.start, first.end).find((t) => t.type !== 'html' && t.type !== 'space');
    if (opening?.type === 'heading' && (opening as Tokens.Heading).depth === 1 && plainText(opening as Tokens.Heading).toLowerCase() === guide.title.toLowerCase()) {
      repeatedTitles.set(guide, opening as Tokens.Heading);
    }
  }

  // Where each heading and each file lives on the site: the first guide to carry it.
  const anchors = new Map<string, string>();
  const fileHomes = new Map<string, string>();
  for (const guide of served) {
    const used = new Set<string>();
    for (const { file, start, end, rest } of ranges.get(guide)!) {
      if (start === 0 && !fileHomes.has(file.name)) fileHomes.set(file.name, guidePath(guide.slug));
      const inRange = file.headings.filter((h) => h.index >= start && h.index < end && h.token !== repeatedTitles.get(guide));
      const shift = inRange.length && !rest ? 2 - Math.min(...inRange.map((h) => h.token.depth)) : 0;
      for (const h of inRange) {
        let id = used.has(h.slug) ? `${file.name.replace(/\.md$/, '').replace(/[^a-z0-9]+/gi, '-')}-${h.slug}` : h.slug;
        for (let n = 2; used.has(id); n++) id = `${h.slug}-${n}`;
        used.add(id);
        plan.headingIds.set(h.token, id);
        plan.headingDepths.set(h.token, Math.max(2, Math.min(6, h.token.depth + shift)));
        if (!anchors.has(`${file.name}#${h.slug}`)) anchors.set(`${file.name}#${h.slug}`, `${guidePath(guide.slug)}#${id}`);
      }
    }
  }

  const targetOf = (from: string, href: string): string | null => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) return null;
    const hash = href.indexOf('#');
    const path = hash < 0 ? href : href.slice(0, hash);
    const anchor = hash < 0 ? '' : href.slice(hash + 1);
    const file = path ? posix.normalize(posix.join(posix.dirname(from), path)) : from;
    if (SERVED_FILES[file] && !anchor) return SERVED_FILES[file];
    if (anchor) return anchors.get(`${file}#${anchor}`) ?? null;
    return fileHomes.get(file) ?? null;
  };
  for (const [name, file] of files) {
    for (const link of markdown.linksIn(file.tokens)) {
      const target = targetOf(name, link.href);
      plan.linkTargets.set(link, target);
      // A link out of docs/ (the SDK's README, the examples) is to a file of the repository: its path is shown.
      const path = posix.normalize(posix.join(posix.dirname(name), link.href.split('#')[0]!));
      if (target === null && !/^[a-z][a-z0-9+.-]*:/i.test(link.href) && path.startsWith('../')) plan.repositoryPaths.set(link, path.slice(3));
    }
  }

  const pages = new Map<string, GuidePage>();
  for (const guide of served) {
    const parts = ranges.get(guide)!;
    const repeated = repeatedTitles.get(guide) ?? null;
    const html = parts.map(({ file, start, end }) => markdown.render(file.tokens.slice(start, end).filter((t) => t !== repeated) as Token[])).join('\n');
    const contents = parts.flatMap(({ file, start, end }) =>
      file.headings
        .filter((h) => h.index >= start && h.index < end && h.token !== repeated && plan.headingDepths.get(h.token) === 2)
        .map((h) => ({ id: plan.headingIds.get(h.token)!, text: plainText(h.token) })),
    );
    pages.set(guide.slug, { guide, html, contents });
  }
  return { pages, missing };
}

/** A heading's words without their Markdown (backticks, emphasis), for the table of contents. */
const plainText = (heading: Tokens.Heading): string => heading.text.replace(/[`*_]/g, '');

/**
 * docs/ of the installed package: found from this module's own place (src/…
 * under tsx, dist/src/… when built), never from the working directory, so the
 * image's api finds it wherever it is started.
 */
export function packageDocsDir(from = import.meta.dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'docs');
    if (dirname(dir) === dir) throw new Error(`No package.json above ${from}`);
  }
}

// Markdown for the docs site: a file lexed once by marked, its headings
// anchored as GitHub anchors them (so `api.md#idempotency` names the same
// heading here as in the repository), sections picked by heading line, and
// the renderer that writes the site's ids, heading levels and link targets
// instead of the file's. Raw HTML in a file is shown as text: the docs are
// ours, but escaping costs nothing.
import escapeHtml from 'escape-html';
import { Marked, type Token, type Tokens } from 'marked';

export interface MarkdownFile {
  /** The path under docs/, as links name it: 'api.md'. */
  name: string;
  tokens: Token[];
  /** The top-level headings, with their GitHub anchor and their index in `tokens`. */
  headings: { token: Tokens.Heading; slug: string; index: number }[];
}

/** A heading's anchor as GitHub writes it: lowercase, punctuation dropped, spaces to hyphens (a repeat gets -1, -2…). */
export const slugOf = (text: string): string =>
  text.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');

/**
 * How the site shows what the renderer meets: heading ids and levels, where each link leads (null: plain text),
 * and for a link to a file of the repository the site does not carry, that file's path, shown beside its words.
 */
export interface RenderPlan {
  headingIds: WeakMap<Tokens.Heading, string>;
  headingDepths: WeakMap<Tokens.Heading, number>;
  linkTargets: WeakMap<Tokens.Link, string | null>;
  repositoryPaths: WeakMap<Tokens.Link, string>;
}

export class MarkdownRenderer {
  private readonly marked: Marked;

  constructor(plan: RenderPlan) {
    this.marked = new Marked({
      gfm: true,
      renderer: {
        heading(token) {
          const depth = plan.headingDepths.get(token) ?? token.depth;
          const id = plan.headingIds.get(token);
          const inner = this.parser.parseInline(token.tokens);
          return `<h${depth}${id ? ` id="${escapeHtml(id)}"` : ''}>${inner}</h${depth}>\n`;
        },
        link(token) {
          const inner = this.parser.parseInline(token.tokens);
          const target = plan.linkTargets.get(token);
          if (target) return `<a href="${escapeHtml(target)}">${inner}</a>`;
          // Words a reader can still follow: the file's path in the repository, unless the words already name it.
          const path = plan.repositoryPaths.get(token);
          const words = inner.replace(/<[^>]*>/g, '').trim();
          const named = (words.includes('/') || words.includes('.')) && path?.startsWith(words);
          return path && !named ? `${inner} (<code>${escapeHtml(path)}</code> in the repository)` : inner;
        },
        image(token) {
          return escapeHtml(token.text);
        },
        html(token) {
          // Comments are notes for whoever edits the file (and the quickstart's test), not for readers.
          const shown = token.text.replace(/<!--[\s\S]*?-->/g, '');
          return shown.trim() ? escapeHtml(shown) : '';
        },
      },
    });
  }

  lex(name: string, text: string): MarkdownFile {
    const tokens = [...this.marked.lexer(text)];
    const seen = new Map<string, number>();
    const headings: MarkdownFile['headings'] = [];
    tokens.forEach((token, index) => {
      if (token.type !== 'heading') return;
      const base = slugOf((token as Tokens.Heading).text);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      headings.push({ token: token as Tokens.Heading, slug: n === 0 ? base : `${base}-${n}`, index });
    });
    return { name, tokens, headings };
  }

  /** Every link token under `tokens`, however deeply nested (lists, tables, emphasis). */
  linksIn(tokens: Token[]): Tokens.Link[] {
    const links: Tokens.Link[] = [];
    this.marked.walkTokens(tokens, (t) => {
      if (t.type === 'link') links.push(t as Tokens.Link);
    });
    return links;
  }

  render(tokens: Token[]): string {
    return this.marked.parser(tokens);
  }
}

/** The token range [start, end) of the section a heading line opens ('## Webhooks'): up to the next heading of its level or higher. */
export function sectionRange(file: MarkdownFile, headingLine: string): [number, number] {
  const at = file.headings.findIndex((h) => `${'#'.repeat(h.token.depth)} ${h.token.text}` === headingLine);
  if (at < 0) throw new Error(`docs/${file.name} has no heading "${headingLine}"`);
  const depth = file.headings[at]!.token.depth;
  const next = file.headings.slice(at + 1).find((h) => h.token.depth <= depth);
  return [file.headings[at]!.index, next ? next.index : file.tokens.length];
}

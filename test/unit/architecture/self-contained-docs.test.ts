// The repository stands on its own: its docs and code name no decision by a
// number defined elsewhere and no file outside it, and every relative link
// in its Markdown leads to a file (and heading) that exists.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = process.cwd();

function filesUnder(dir: string, ext: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path, ext) : path.endsWith(ext) ? [path] : [];
  });
}

const markdown = [join(root, 'README.md'), join(root, 'CONTRIBUTING.md'), ...filesUnder(join(root, 'docs'), '.md'), join(root, 'src/sdk/README.md')];
const sources = filesUnder(join(root, 'src'), '.ts');

/** Headings as GitHub anchors them: lowercase, punctuation dropped, spaces to hyphens. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

describe('the repository stands on its own', () => {
  it('names no outside decision number or outside file in its docs and code', () => {
    const outside = /\bD(?:[1-9]|1[0-6])\b|shared\/spec|\.\.\/shared|wallet-api-v2\.md|decisions\.md/;
    const hits = [...markdown, ...sources].flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ file: relative(root, file), line: i + 1, text: line }))
        .filter((l) => outside.test(l.text)),
    );
    expect(hits).toEqual([]);
  });

  it('has no broken relative link or anchor in its Markdown', () => {
    const broken: string[] = [];
    for (const file of markdown) {
      const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue;
        const [path, anchor] = target!.split('#');
        const dest = path ? resolve(dirname(file), path) : file;
        if (!existsSync(dest)) broken.push(`${relative(root, file)}: ${target}`);
        else if (anchor && dest.endsWith('.md') && !anchorsOf(dest).has(anchor)) broken.push(`${relative(root, file)}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

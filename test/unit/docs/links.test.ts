import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');

/** README.md and every page under docs/: the documentation a reader follows links through. */
function docFiles(): string[] {
  const docs = path.join(ROOT, 'docs');
  return [path.join(ROOT, 'README.md'), ...fs.readdirSync(docs).filter((f) => f.endsWith('.md')).map((f) => path.join(docs, f))];
}

/** The text outside fenced code blocks and inline code, where a `[x](y)` is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = match[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text.toLowerCase().replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Every relative link of a page that does not lead to an existing file, or to an anchor its target lacks. */
export function brokenLinks(file: string, markdown: string): string[] {
  const broken: string[] = [];
  for (const match of prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, command:
    const [filePart, anchor] = target.split('#', 2);
    const resolved = filePart ? path.resolve(path.dirname(file), decodeURIComponent(filePart)) : file;
    if (!fs.existsSync(resolved)) {
      broken.push(`${path.relative(ROOT, file)}: ${target} (no such file)`);
      continue;
    }
    const targetText = filePart ? () => fs.readFileSync(resolved, 'utf8') : () => markdown;
    if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(targetText()).has(anchor)) {
      broken.push(`${path.relative(ROOT, file)}: ${target} (no such heading)`);
    }
  }
  return broken;
}

describe('documentation links', () => {
  it('every relative link in README.md and docs/*.md leads to an existing file, and to an existing heading when it names one', () => {
    const files = docFiles();
    assert.ok(files.length >= 10, `expected the README and the docs pages, found ${files.length} files`);
    const broken = files.flatMap((f) => brokenLinks(f, fs.readFileSync(f, 'utf8')));
    assert.deepEqual(broken, []);
  });

  it('the README links every page under docs/', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const unlinked = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && !readme.includes(`](docs/${f}`));
    assert.deepEqual(unlinked, []);
  });

  it('the checker finds a missing file and a missing heading, and skips code and URLs', () => {
    const page = path.join(ROOT, 'docs', 'user-guide.md');
    const text = [
      '# Title',
      '## Using it: the explorer',
      'See [ok](#using-it-the-explorer), [gone](nope.md), [bad anchor](settings.md#no-such-heading),',
      '[web](https://example.com/x.md), `[code](not-checked.md)`.',
      '```',
      '[fenced](also-not-checked.md)',
      '```',
    ].join('\n');
    assert.deepEqual(brokenLinks(page, text), ['docs/user-guide.md: nope.md (no such file)', 'docs/user-guide.md: settings.md#no-such-heading (no such heading)']);
  });

  it('anchors follow GitHub: code and punctuation dropped, repeats numbered', () => {
    const anchors = anchorsOf('## Retrieval speed (`bench:retrieval`)\n## Why strict + combined empties it\n## Notes\n## Notes\n');
    assert.deepEqual([...anchors], ['retrieval-speed-benchretrieval', 'why-strict--combined-empties-it', 'notes', 'notes-1']);
  });
});

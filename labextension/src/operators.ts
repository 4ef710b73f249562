// Search operators as the sidebar reads them (the server applies the same grammar in
// engram_lab/search_operators.py): path:, tag:, after:/before: dates and quoted phrases; and the
// display helpers for results: Markdown stripped from snippets, query words highlighted.

export interface IParsedQuery {
  words: string[]; // what the retriever sees (phrases included, as words)
  phrases: string[];
  path: string[];
  tag: string[];
  after: string | null;
  before: string | null;
  error: string | null; // one line, shown instead of searching
}

const TOKEN = /([A-Za-z]+):(?:"([^"]*)"|(\S*))|"([^"]*)"|(\S+)/g;
const OPERATORS = ['path', 'tag', 'after', 'before'];
const DATE = /^\d{4}(-\d{2})?(-\d{2})?$/;

export function parseQuery(query: string): IParsedQuery {
  const parsed: IParsedQuery = { words: [], phrases: [], path: [], tag: [], after: null, before: null, error: null };
  for (const m of query.matchAll(TOKEN)) {
    const key = (m[1] ?? '').toLowerCase();
    if (OPERATORS.includes(key)) {
      const value = (m[2] ?? m[3] ?? '').trim();
      if (!value) {
        parsed.error = `${key}: needs a value`;
      } else if (key === 'path' || key === 'tag') {
        parsed[key].push(key === 'tag' ? value.replace(/^#/, '').toLowerCase() : value.toLowerCase());
      } else if (!DATE.test(value) || !validDate(value)) {
        parsed.error = `${key}:${value} is not a date; use YYYY, YYYY-MM or YYYY-MM-DD`;
      } else {
        parsed[key as 'after' | 'before'] = value;
      }
    } else if (m[4] !== undefined) {
      const phrase = m[4].split(/\s+/).filter(Boolean).join(' ');
      if (phrase) {
        parsed.phrases.push(phrase);
        parsed.words.push(...phrase.split(' '));
      }
    } else {
      parsed.words.push(m[0]);
    }
  }
  const narrowing = parsed.path.length || parsed.tag.length || parsed.after || parsed.before;
  if (!parsed.error && !parsed.words.length && narrowing) {
    parsed.error = 'add words to search for: path:, tag:, after: and before: only narrow the results';
  }
  return parsed;
}

function validDate(value: string): boolean {
  const [y, m, d] = value.split('-').map(Number);
  if (m !== undefined && (m < 1 || m > 12)) {
    return false;
  }
  return d === undefined || (d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate());
}

/** The filters in force, as a short line under the search box. */
export function describeFilters(q: IParsedQuery): string {
  const parts = [...q.path.map(p => `path:${p}`), ...q.tag.map(t => `tag:${t}`), ...q.phrases.map(p => `"${p}"`)];
  if (q.after) {
    parts.push(`after:${q.after}`);
  }
  if (q.before) {
    parts.push(`before:${q.before}`);
  }
  return parts.length ? `filters: ${parts.join(' ')}` : '';
}

/** A snippet without Markdown syntax: headings, emphasis, links and wikilinks, link definitions, code fences, tables,
 * frontmatter. */
export function cleanSnippet(text: string): string {
  return text
    .replace(/^---\n[\s\S]*?\n---\n?/, '')
    .replace(/```[^\n]*\n?/g, '')
    .replace(/(^|\s)\[[^\]\n]+\]:[ \t]*\S+/g, '$1') // reference definitions, `[motivation]: #motivation`
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]/g, (_m, target: string, alias?: string) => alias ?? target)
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]\n]+)\]\[[^\]\n]*\]/g, '$1') // reference links, `[RFC 2843][rfc-llvm-asm]`
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/^\s*>\s?/gm, '')
    .replace(/^\s*[-*+]\s+\[[ xX]\]\s+/gm, '')
    .replace(/^\s*[-*+]\s+/gm, '')
    .replace(/(^|\s)[-*+]\s+\[[ xX]\]\s+/g, '$1') // the server's snippets come with lines already joined
    .replace(/(^|\s)#{1,6}\s+/g, '$1')
    .replace(/^\s*\|?[\s:|-]+\|[\s:|-]*$/gm, '')
    .replace(/\|/g, ' ')
    .replace(/(^|\s)(:?-{3,}:?(\s|$))+/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[^\w*])[*_]([^*_\n]+)[*_](?=[^\w*]|$)/g, '$1$2')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

// Marking every "the" hides the words that matter.
const STOP_WORDS = new Set('a an and are as at be by did do does for from has have how in is it of on or the to was were what when where which who why with'.split(' '));

export interface ISegment {
  text: string;
  hit: boolean;
}

/** Split text into runs, marking the query's words (case-insensitive; a word of 2+ letters, or a phrase). */
export function highlight(text: string, q: IParsedQuery): ISegment[] {
  const terms = [...q.phrases, ...q.words].map(w => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter(w => w.length > 1 && !STOP_WORDS.has(w.toLowerCase()));
  if (!terms.length) {
    return [{ text, hit: false }];
  }
  const escaped = [...new Set(terms)].sort((a, b) => b.length - a.length).map(t => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const split = new RegExp(`(${escaped.join('|')})`, 'giu');
  const whole = new RegExp(`^(?:${escaped.join('|')})$`, 'iu');
  return text.split(split).filter(Boolean).map(part => ({ text: part, hit: whole.test(part) }));
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanSnippet, describeFilters, highlight, parseQuery } from '../operators';

test('operators are parsed out of the words', () => {
  const q = parseQuery('sensor drift path:Meetings tag:#equipment after:2026-03 before:"2026-06-01" "CT-200  firmware" http://x');
  assert.deepEqual(q.words, ['sensor', 'drift', 'CT-200', 'firmware', 'http://x']);
  assert.deepEqual([q.path, q.tag, q.after, q.before, q.phrases, q.error], [['meetings'], ['equipment'], '2026-03', '2026-06-01', ['CT-200 firmware'], null]);
  assert.equal(describeFilters(q), 'filters: path:meetings tag:equipment "CT-200 firmware" after:2026-03 before:2026-06-01');
  assert.equal(describeFilters(parseQuery('plain words')), '');
});

test('mistakes are one line', () => {
  assert.equal(parseQuery('x after:2026-13').error, 'after:2026-13 is not a date; use YYYY, YYYY-MM or YYYY-MM-DD');
  assert.equal(parseQuery('x before:2026-02-30').error?.startsWith('before:2026-02-30 is not a date'), true);
  assert.equal(parseQuery('x path:').error, 'path: needs a value');
  assert.equal(parseQuery('tag:x').error?.startsWith('add words to search for'), true);
});

test('snippets lose their Markdown', () => {
  assert.equal(cleanSnippet('## Decision\n\n**AquaSense** replaced the [[orgs/halden|Halden]] CT-200, see [notes](x.md) and `code`.'),
    'Decision AquaSense replaced the Halden CT-200, see notes and code.');
  assert.equal(cleanSnippet('| a | b |\n|---|---|\n| 1 | 2 |\n- [x] done\n> quoted _it_'), 'a b 1 2 done quoted it');
  assert.equal(cleanSnippet('---\ntitle: T\n---\n# Head\ntext'), 'Head text');
  assert.equal(cleanSnippet('Status | --- | --- | :---: | CT-200'), 'Status CT-200');
  assert.equal(cleanSnippet('## Motivation\n[motivation]: #motivation\n\nIn [RFC 2843][rfc-llvm-asm].\n[rfc-llvm-asm]: https://x.org/2843'),
    'Motivation In RFC 2843.');
  assert.equal(cleanSnippet('Motivation [motivation]: #motivation In systems'), 'Motivation In systems');
  assert.equal(cleanSnippet('Actions - [x] Lindqvist to update. - [ ] Hall to order. ## Next'), 'Actions Lindqvist to update. Hall to order. Next');
});

test('query words and phrases are highlighted, case-insensitively', () => {
  const segments = highlight('The CT-200 sensors replaced the old sensor.', parseQuery('sensor "ct-200" a'));
  assert.deepEqual(segments.filter(s => s.hit).map(s => s.text), ['CT-200', 'sensor', 'sensor']);
  assert.equal(segments.map(s => s.text).join(''), 'The CT-200 sensors replaced the old sensor.');
  assert.deepEqual(highlight('x', parseQuery('')), [{ text: 'x', hit: false }]);
  assert.deepEqual(highlight('Which of the sensors', parseQuery('which the sensors')).filter(s => s.hit).map(s => s.text), ['sensors']);
});

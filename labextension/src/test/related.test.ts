import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IRelatedNote, needsFetch, notePathIn, orderedReasons, reasonText, relatedTooltip } from '../related';

test('a file-browser path becomes a note path only inside the vault folder', () => {
  assert.equal(notePathIn('demo-vault/orgs/aquasense.md', 'demo-vault'), 'orgs/aquasense.md');
  assert.equal(notePathIn('demo-vault-2/x.md', 'demo-vault'), null, 'a sibling folder with the same prefix is not the vault');
  assert.equal(notePathIn('notebooks/01.ipynb', 'demo-vault'), null);
  assert.equal(notePathIn('x.md', '.'), 'x.md');
  assert.equal(notePathIn('x.md', null), null, 'a vault outside the server root has no editor paths');
});

test('the panel asks again only when the note or the vault changed', () => {
  assert.equal(needsFetch(null, 'a.md', '/v'), true);
  assert.equal(needsFetch({ path: 'a.md', vault: '/v' }, 'a.md', '/v'), false);
  assert.equal(needsFetch({ path: 'a.md', vault: '/v' }, 'b.md', '/v'), true);
  assert.equal(needsFetch({ path: 'a.md', vault: '/v' }, 'a.md', '/w'), true);
  assert.equal(needsFetch({ path: 'a.md', vault: '/v' }, null, '/v'), false, 'a non-note tab keeps the last list');
});

const note: IRelatedNote = {
  path: 'orgs/aquasense.md', title: 'AquaSense', score: 1.85,
  reasons: [
    { kind: 'similar text', detail: 'cosine 0.61', weight: 0.61 },
    { kind: 'shared entities', detail: 'AS-5, CT-200', weight: 0.24 },
    { kind: 'linked from', detail: 'it links to this note', weight: 1 }
  ]
};

test('reasons read as short lines, links first', () => {
  assert.deepEqual(orderedReasons(note.reasons).map(reasonText),
    ['← it links to this note', 'shares AS-5, CT-200', 'similar text (cosine 0.61)']);
  assert.equal(reasonText({ kind: 'links to', detail: '', weight: 1 }), '→ this note links to it');
  assert.equal(reasonText({ kind: 'about', detail: 'X', weight: 1 }), 'about: X', 'a kind added later still shows');
});

test('the tooltip shows the score as the sum of its reasons', () => {
  assert.equal(relatedTooltip(note), 'orgs/aquasense.md\nscore 1.85 = linked from +1.00 shared entities +0.24 similar text +0.61');
});

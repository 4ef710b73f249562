import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countByStatus, filterNotes, INote, positionAt, progressText, resultTitle, staleText, statusLabel, triplesOfPart } from '../logic';

const notes: INote[] = [
  { path: 'orgs/aquasense.md', title: 'AquaSense', status: 'indexed', error: null, entities: 5, relations: 4 },
  { path: 'broken.md', title: 'broken.md', status: 'failed', error: 'not UTF-8', entities: 0, relations: 0 },
  { path: 'learned/x.md', title: 'X', status: 'pending-review', error: null, entities: 0, relations: 0 }
];

test('status labels name the failure reason', () => {
  assert.equal(statusLabel(notes[1]), 'failed: not UTF-8');
  assert.equal(statusLabel(notes[2]), 'pending review');
});

test('counts and filter', () => {
  assert.deepEqual(countByStatus(notes), { indexed: 1, failed: 1, 'pending-review': 1 });
  assert.deepEqual(filterNotes(notes, 'aqua').map(n => n.path), ['orgs/aquasense.md']);
  assert.equal(filterNotes(notes, '  ').length, 3);
});

test('stale text', () => {
  assert.equal(staleText(0), 'engram: up to date');
  assert.equal(staleText(1), 'engram: 1 note to index');
  assert.equal(staleText(3), 'engram: 3 notes to index');
});

test('result title and editor positions', () => {
  const result = { rank: 1, path: 'a.md', doc: 'a.md', cell_id: null, score: 1, span: [3, 9] as [number, number], heading: 'H',
    heading_path: ['Top', 'H'], snippet: '', status: 'indexed', superseded: null };
  assert.equal(resultTitle(result), 'a.md · Top > H · chars 3–9');
  assert.deepEqual(positionAt('ab\ncd\nef', 4), { line: 1, column: 1 });
  assert.deepEqual(positionAt('ab', 99), { line: 0, column: 2 });
});

test('progress and the triples of one notebook cell', () => {
  assert.equal(progressText(3, 10), 'engram: indexing 3/10 notes');
  assert.equal(progressText(0, 0), 'engram: indexing…');
  assert.equal(progressText(3, 10, 'notes: read, extract, graphs'), 'engram: indexing 3/10 notes');
  assert.equal(progressText(1024, 25119, 'embeddings: facts'), 'engram: indexing, embeddings: facts 1024/25119');
  assert.equal(progressText(0, 1, 'keyword index'), 'engram: indexing, keyword index');
  const triples = [{ cell_id: null, s: 'a' }, { cell_id: 'c1', s: 'b' }, { cell_id: 'c2', s: 'c' }];
  assert.deepEqual(triplesOfPart(triples, 'c1').map(t => t.s), ['b']);
  assert.deepEqual(triplesOfPart(triples, null).map(t => t.s), ['a']);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INote } from '../logic';
import { buildTree, filterTree, noteLabel, noteTooltip } from '../tree';

const note = (path: string, title: string, status = 'indexed'): INote => ({ path, title, status, error: null, entities: 2, relations: 1 });
const notes = [note('meetings/2026-05-27-midterm.md', 'Midterm review'), note('index.md', 'Estuary project'),
  note('meetings/2026-01-14-kickoff.md', 'Kickoff'), note('orgs/halden.md', 'orgs/halden.md', 'new'), note('a/b/c.md', 'Deep')];

test('folders first, notes by title, counts per folder', () => {
  const root = buildTree(notes);
  assert.equal(root.count, 5);
  assert.deepEqual(root.folders.map(f => [f.name, f.count]), [['a', 1], ['meetings', 2], ['orgs', 1]]);
  assert.deepEqual(root.folders[1].notes.map(noteLabel), ['Kickoff', 'Midterm review']);
  assert.equal(root.folders[0].folders[0].path, 'a/b');
  assert.equal(noteLabel(note('README.md', 'Rust RFCs - [RFC Book](https://rust-lang.github.io/rfcs/)')), 'Rust RFCs - RFC Book');
  assert.deepEqual(root.notes.map(n => n.path), ['index.md']);
});

test('labels fall back to the file name; hover shows path, status and counts', () => {
  assert.equal(noteLabel(notes[3]), 'halden.md');
  assert.equal(noteTooltip(notes[0]), 'meetings/2026-05-27-midterm.md\nindexed\n2 entities · 1 relations');
});

test('the filter matches every word in path, title or status', () => {
  assert.deepEqual(filterTree(notes, 'meet KICK').map(n => n.path), ['meetings/2026-01-14-kickoff.md']);
  assert.deepEqual(filterTree(notes, 'new').map(n => n.path), ['orgs/halden.md']);
  assert.equal(filterTree(notes, '   ').length, 5);
});

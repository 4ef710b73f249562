import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clickedNode, graphQuery, IGraphNode, shownKey, viewModel } from '../graph';

test('the model stand-in fires change listeners and hands messages on', () => {
  const sent: unknown[] = [];
  const model = viewModel({ graph: { nodes: [] }, selected: '' }, (message, m) => {
    sent.push(message);
    m.set('selected', 'clicked');
  });
  const changes: string[] = [];
  model.on('change:selected', () => changes.push(model.get('selected')));
  model.on('change:selected', () => changes.push('second listener'));
  assert.deepEqual(model.get('graph'), { nodes: [] });
  model.send({ type: 'node', id: 3 });
  assert.deepEqual(sent, [{ type: 'node', id: 3 }]);
  assert.deepEqual(changes, ['clicked', 'second listener']);
  model.set('mentions', []);
  assert.equal(changes.length, 2, 'a key nobody listens to fires nothing');
});

test('the graph query carries the note, the depth and the cap', () => {
  assert.equal(graphQuery('meetings/a b.md', 2), 'graph?path=meetings%2Fa%20b.md&depth=2&limit=40');
  assert.equal(graphQuery('x.md', 1, 30), 'graph?path=x.md&depth=1&limit=30');
});

const nodes: IGraphNode[] = [
  { id: 1, label: 'Kickoff', type: 'passage', kind: 'note', path: 'meetings/kickoff.md' },
  { id: 40, label: 'AquaSense', type: 'entity', kind: 'Organization', path: null }
];

test('a click on an entity asks for its mentions; on a note, the note is its own line', () => {
  assert.deepEqual(clickedNode(nodes, 40), { node: nodes[1], ask: 'graph?mentions=40', mentions: [] });
  const note = clickedNode(nodes, 1)!;
  assert.equal(note.ask, null);
  assert.deepEqual(note.mentions, [{ path: 'meetings/kickoff.md', start: null, end: null, surface: '(the note itself)' }]);
  assert.equal(clickedNode(nodes, 99), null);
  assert.equal(clickedNode(nodes, undefined), null);
});

test('the panel asks again when the note, the vault or the depth changed', () => {
  const key = shownKey('a.md', '/v', 1);
  assert.equal(shownKey('a.md', '/v', 1), key);
  assert.notEqual(shownKey('b.md', '/v', 1), key);
  assert.notEqual(shownKey('a.md', '/w', 1), key);
  assert.notEqual(shownKey('a.md', '/v', 2), key);
});

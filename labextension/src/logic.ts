// Pure sidebar logic (no DOM, no JupyterLab): tested with node --test.

export interface INote {
  path: string;
  title: string;
  status: 'indexed' | 'stale' | 'failed' | 'pending-review' | 'new' | string;
  error: string | null;
  entities: number;
  relations: number;
}

export interface IResult {
  rank: number;
  path: string;
  doc: string;
  cell_id: string | null;
  score: number;
  span: [number, number] | null;
  heading: string | null;
  heading_path: string[];
  snippet: string;
  status: string;
  superseded: string | null;
}

const STATUS_LABELS: Record<string, string> = {
  indexed: 'indexed',
  stale: 'stale: changed since indexing',
  failed: 'failed',
  'pending-review': 'pending review',
  new: 'new: not indexed yet'
};

export function statusLabel(note: INote): string {
  const label = STATUS_LABELS[note.status] ?? note.status;
  return note.status === 'failed' && note.error ? `${label}: ${note.error}` : label;
}

export function countByStatus(notes: INote[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const note of notes) {
    counts[note.status] = (counts[note.status] ?? 0) + 1;
  }
  return counts;
}

export function filterNotes(notes: INote[], text: string): INote[] {
  const wanted = text.trim().toLowerCase();
  if (!wanted) {
    return notes;
  }
  return notes.filter(n => n.path.toLowerCase().includes(wanted) || n.title.toLowerCase().includes(wanted));
}

export function staleText(count: number): string {
  return count === 0 ? 'engram: up to date' : `engram: ${count} note${count === 1 ? '' : 's'} to index`;
}

export function resultTitle(result: IResult): string {
  const where = result.heading_path.length ? result.heading_path.join(' > ') : '(top of note)';
  const span = result.span ? ` · chars ${result.span[0]}–${result.span[1]}` : '';
  return `${result.doc} · ${where}${span}`;
}

/** Line and column (0-based) of a character offset, for placing the editor cursor on a span. */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length - 1, column: lines[lines.length - 1].length };
}

export function progressText(done: number, total: number, stage: string | null = null): string {
  if (stage && !stage.startsWith('notes')) { // later stages count chunks, entities or facts, not notes
    return `engram: indexing, ${stage}` + (total > 1 ? ` ${done}/${total}` : '');
  }
  return total > 0 ? `engram: indexing ${done}/${total} notes` : 'engram: indexing…';
}

/** The triples of one part of a document: the whole note (cell null), or one notebook cell. */
export function triplesOfPart<T extends { cell_id: string | null }>(triples: T[], cellId: string | null): T[] {
  return triples.filter(t => (t.cell_id ?? null) === cellId);
}

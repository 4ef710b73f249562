// Open a vault's note in the editor with a span selected: a Markdown note in the file editor, a notebook
// at its cell (a Markdown cell switched to editing so the span can be selected).
import { IDocumentManager } from '@jupyterlab/docmanager';
import { NotebookPanel } from '@jupyterlab/notebook';
import { positionAt } from './logic';
import { VaultState } from './vault';

export interface ITarget {
  path: string; // vault-relative; may end in '#cell=<id>'
  vault?: string | null; // absolute; absent: the sidebar's current vault
  cell?: string | null;
  span?: [number, number] | null;
}

interface IEditorLike {
  model: { sharedModel: { getSource(): string } };
  setSelections(ranges: { start: { line: number; column: number }; end: { line: number; column: number } }[]): void;
  revealPosition(position: { line: number; column: number }): void;
  focus(): void;
}

/** Select the span in a shown editor, focused first so the selection is the one the browser shows.
 *
 * Focusing an editor that was hidden (a note already open in a background tab) leaves the browser's caret at the
 * start of the text, and CodeMirror reads that back as the selection a moment later, unless it writes its own
 * selection to the page first. It writes only a selection that differs from the one it last wrote, which for a
 * note reopened at the same span is this very span: so collapse to the span's start, then select it. Both steps
 * happen while focused, and the browser holds the span when the pending read comes. */
function select(editor: IEditorLike, span: [number, number]): void {
  const text = editor.model.sharedModel.getSource();
  const range = { start: positionAt(text, span[0]), end: positionAt(text, span[1]) };
  const other = span[0] !== span[1] ? range.start : positionAt(text, span[0] > 0 ? 0 : text.length);
  editor.focus();
  editor.setSelections([{ start: other, end: other }]);
  editor.setSelections([range]);
  editor.revealPosition(range.start);
}

export async function openTarget(docs: IDocumentManager, vaults: VaultState, target: ITarget): Promise<void> {
  const [file, fragment] = target.path.split('#');
  const cell = target.cell ?? (fragment?.startsWith('cell=') ? fragment.slice(5) : null);
  const labPath = await vaults.labPath(file, target.vault);
  if (!file.endsWith('.ipynb')) {
    const widget = docs.openOrReveal(labPath, 'Editor') as any;
    if (widget && target.span) {
      await widget.context.ready;
      await widget.revealed;
      select(widget.content.editor, target.span);
    }
    return;
  }
  const panel = docs.openOrReveal(labPath, 'Notebook') as NotebookPanel | undefined;
  if (!panel || !cell) {
    return;
  }
  await panel.context.ready;
  await panel.revealed;
  const notebook = panel.content;
  const index = notebook.widgets.findIndex(c => c.model.id === cell);
  if (index < 0) {
    return;
  }
  notebook.activeCellIndex = index;
  const active = notebook.widgets[index] as any;
  if (active.model.type === 'markdown') {
    active.rendered = false;
  }
  notebook.mode = 'edit';
  await active.ready;
  await notebook.scrollToItem(index);
  if (target.span && active.editor) {
    select(active.editor, target.span);
  }
}

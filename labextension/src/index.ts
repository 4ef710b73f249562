// engram-lab in JupyterLab: the vault sidebar (the server's current vault, switchable), a stale-notes status
// item, re-index, note provenance, learn from selection, "Open as engram vault" in the file browser, and opening
// notes at a span in their own vault (kernel result links and the panels' "engram:open" events).
import { ILabShell, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Dialog, ICommandPalette, showDialog, showErrorMessage } from '@jupyterlab/apputils';
import { IDocumentManager } from '@jupyterlab/docmanager';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { IStatusBar } from '@jupyterlab/statusbar';
import { Widget } from '@lumino/widgets';
import { requestAPI } from './api';
import { positionAt, progressText, staleText, triplesOfPart } from './logic';
import { ITarget, openTarget } from './open';
import { notePathIn } from './related';
import { RelatedPanel } from './relatedPanel';
import { GraphPanel } from './graphPanel';
import { VaultSidebar } from './sidebar';
import { VaultState } from './vault';

interface IEditorLike {
  model: { sharedModel: { getSource(): string } };
  setSelections(ranges: { start: { line: number; column: number }; end: { line: number; column: number } }[]): void;
  revealPosition(position: { line: number; column: number }): void;
  getSelection(): { start: { line: number; column: number }; end: { line: number; column: number } };
  getOffsetAt(position: { line: number; column: number }): number;
}

interface ITriple { subject: string; predicate: string; object: string; cell_id: string | null; start: number | null; end: number | null }

interface IIndexState {
  running: boolean;
  stage: string | null; // e.g. "embeddings: sections"; done / total count that stage's items
  done: number;
  total: number;
  error: string | null;
  report: { added: string[]; updated: string[]; failed: string[][]; seconds: number } | null;
}

const COMMANDS = { reindex: 'engram:reindex', provenance: 'engram:show-provenance', learn: 'engram:learn-from-selection',
  openVault: 'engram:open-vault' };
const POLL_MS = 5000; // status badges and the kernel's vault choice show up within this

function currentEditor(app: JupyterFrontEnd): { path: string; editor: IEditorLike; cellId: string | null } | null {
  const widget = app.shell.currentWidget as any;
  const path: string | undefined = widget?.context?.path;
  const cell = widget?.content?.activeCell;
  const editor = widget?.content?.editor ?? cell?.editor;
  return path && editor ? { path, editor, cellId: cell ? String(cell.model.id) : null } : null;
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'engram-lab:plugin',
  description: 'The engram vault in JupyterLab',
  autoStart: true,
  requires: [IDocumentManager, ILabShell],
  optional: [ICommandPalette, IStatusBar, IDefaultFileBrowser],
  activate: (app: JupyterFrontEnd, docs: IDocumentManager, shell: ILabShell, palette: ICommandPalette | null, statusBar: IStatusBar | null,
    browser: IDefaultFileBrowser | null) => {
    const vaults = new VaultState();
    /** A file-browser path as a path in the current vault (null: not a note of it). */
    const toVault = (labPath: string) => {
      const folder = vaults.current.root_relative;
      if (folder === null || folder === '.') {
        return folder === null ? null : labPath;
      }
      return labPath.startsWith(folder + '/') ? labPath.slice(folder.length + 1) : null;
    };

    const openAt = (target: ITarget) => void openTarget(docs, vaults, target).catch(error => showErrorMessage('engram', String(error)));

    const status = new Widget();
    status.addClass('jp-engram-status');
    let lastStale = -1;
    let reindexing = false;
    const refreshStatus = async () => {
      try {
        await vaults.refresh(); // a kernel's %engram open shows here
        if (!vaults.current.vault) {
          status.node.textContent = 'engram: no vault open';
          return;
        }
        const data = await requestAPI<{ stale: number }>('status');
        if (!reindexing) {
          status.node.textContent = staleText(data.stale);
        }
        if (data.stale !== lastStale && lastStale !== -1) {
          void sidebar.refresh(); // badges follow edits without a reload
        }
        lastStale = data.stale;
      } catch (error) {
        status.node.textContent = 'engram: unavailable';
      }
    };

    const sidebar = new VaultSidebar(openAt, () => app.commands.execute(COMMANDS.reindex) as Promise<void>, vaults);
    sidebar.title.label = 'engram';
    sidebar.title.iconClass = 'jp-engram-icon';
    shell.add(sidebar, 'left', { rank: 600 });
    // A save in the editor changes a note's status at once; refresh the badges soon after.
    app.serviceManager.contents.fileChanged.connect((_, change) => {
      const path = change.newValue?.path ?? change.oldValue?.path;
      if (path && toVault(path) !== null) {
        window.setTimeout(() => void refreshStatus().then(() => sidebar.refresh()), 300);
      }
    });

    // Related notes of the note in the active editor, asked again as the user switches notes (or vaults).
    const related = new RelatedPanel(openAt);
    related.title.label = 'Related';
    related.title.iconClass = 'jp-engram-related-icon'; // not the sidebar's class: tests and users find that tab by it
    shell.add(related, 'right', { rank: 600 });
    // The local graph of the same note, drawn by the notebook panels' graph view.
    const graph = new GraphPanel();
    graph.title.label = 'Graph';
    graph.title.iconClass = 'jp-engram-graph-icon';
    shell.add(graph, 'right', { rank: 601 });
    const followEditor = () => {
      const path = (shell.currentWidget as any)?.context?.path as string | undefined;
      if (path) {
        void related.showFor(notePathIn(path, vaults.current.root_relative), vaults.current.vault);
        graph.showFor(notePathIn(path, vaults.current.root_relative), vaults.current.vault);
      }
    };
    shell.currentChanged.connect(followEditor);
    vaults.onChange(followEditor);

    app.commands.addCommand(COMMANDS.reindex, {
      label: 'Engram: re-index the vault',
      execute: async () => {
        reindexing = true;
        try {
          let state = await requestAPI<IIndexState>('index?background=1', { method: 'POST', body: '{}' });
          while (state.running) {
            status.node.textContent = progressText(state.done, state.total, state.stage);
            await new Promise(resolve => window.setTimeout(resolve, 500));
            state = await requestAPI<IIndexState>('index');
          }
          if (state.error) {
            throw new Error(state.error);
          }
          const report = state.report!;
          status.node.textContent = `engram: indexed in ${report.seconds.toFixed(1)} s (${report.added.length} added, ${report.updated.length} updated, ${report.failed.length} failed)`;
        } catch (error) {
          await showErrorMessage('engram', String(error));
        } finally {
          reindexing = false;
        }
        await sidebar.refresh();
        related.forget();
        graph.forget();
        followEditor();
        window.setTimeout(() => void refreshStatus(), 4000);
      }
    });

    app.commands.addCommand(COMMANDS.provenance, {
      label: 'Engram: show provenance of this note',
      isEnabled: () => currentEditor(app) !== null,
      execute: async () => {
        const current = currentEditor(app);
        const vaultPath = current ? toVault(current.path) : null;
        if (!current || vaultPath === null) {
          await showErrorMessage('engram', 'This file is not a note of the vault.');
          return;
        }
        try {
          const data = await requestAPI<{ triples: ITriple[] }>(`provenance?path=${encodeURIComponent(vaultPath)}`);
          const text = current.editor.model.sharedModel.getSource();
          // In a notebook, the active Markdown cell's own triples (spans index into that cell's source).
          const spans = triplesOfPart(data.triples, current.cellId).filter(t => t.start !== null && t.end !== null);
          if (spans.length) {
            current.editor.setSelections(spans.map(t => ({ start: positionAt(text, t.start!), end: positionAt(text, t.end!) })));
          }
          const body = document.createElement('table');
          body.className = 'jp-engram-triples';
          body.innerHTML = '<tr><th>subject</th><th>predicate</th><th>object</th><th>span</th></tr>';
          for (const t of data.triples) {
            const row = body.insertRow();
            for (const value of [t.subject, t.predicate, t.object, t.start === null ? '' : `${t.start}–${t.end}`]) {
              row.insertCell().textContent = value;
            }
          }
          await showDialog({ title: `${data.triples.length} triples from ${vaultPath} (spans selected in the editor)`,
            body: new Widget({ node: body }), buttons: [Dialog.okButton()] });
        } catch (error) {
          await showErrorMessage('engram', String(error));
        }
      }
    });

    app.commands.addCommand(COMMANDS.learn, {
      label: 'Engram: learn from selection',
      isEnabled: () => currentEditor(app) !== null,
      execute: async () => {
        const current = currentEditor(app);
        if (!current) {
          return;
        }
        const range = current.editor.getSelection();
        const text = current.editor.model.sharedModel.getSource();
        const selected = text.slice(current.editor.getOffsetAt(range.start), current.editor.getOffsetAt(range.end));
        const form = document.createElement('div');
        form.className = 'jp-engram-learn';
        form.innerHTML = '<label>Title <input name="title"></label><label>Sources (one per line: vault notes or URLs) <textarea name="sources" rows="2"></textarea></label><label>Body <textarea name="body" rows="8"></textarea></label>';
        (form.querySelector('[name=sources]') as HTMLTextAreaElement).value = toVault(current.path) ?? '';
        (form.querySelector('[name=body]') as HTMLTextAreaElement).value = selected;
        const answer = await showDialog({ title: 'Learn a note (it waits for review)', body: new Widget({ node: form }),
          buttons: [Dialog.cancelButton(), Dialog.okButton({ label: 'Write learned note' })] });
        if (!answer.button.accept) {
          return;
        }
        const payload = {
          title: (form.querySelector('[name=title]') as HTMLInputElement).value,
          body: (form.querySelector('[name=body]') as HTMLTextAreaElement).value,
          sources: (form.querySelector('[name=sources]') as HTMLTextAreaElement).value.split('\n').map(s => s.trim()).filter(Boolean)
        };
        try {
          const result = await requestAPI<{ path: string }>('learn', { method: 'POST', body: JSON.stringify(payload) });
          await showDialog({ title: 'Learned note written', body: `${result.path}: pending review; searchable now, in the graph once accepted.`, buttons: [Dialog.okButton()] });
          await sidebar.refresh();
        } catch (error) {
          await showErrorMessage('engram: not written', String(error));
        }
      }
    });

    app.commands.addCommand(COMMANDS.openVault, {
      label: 'Open as engram vault',
      caption: 'Show this folder in the engram sidebar (it must lie under JupyterLab\'s root folder)',
      isVisible: () => !!browser && [...browser.selectedItems()].some(item => item.type === 'directory'),
      execute: async () => {
        const folder = browser ? [...browser.selectedItems()].find(item => item.type === 'directory') : undefined;
        if (!folder) {
          return;
        }
        try {
          await vaults.open(folder.path);
          shell.activateById(sidebar.id);
          await refreshStatus();
        } catch (error) {
          await showErrorMessage('engram: not opened', String(error));
        }
      }
    });
    app.contextMenu.addItem({ command: COMMANDS.openVault, selector: '.jp-DirListing-item[data-isdir="true"]', rank: 3 });

    if (palette) {
      for (const command of [COMMANDS.reindex, COMMANDS.provenance, COMMANDS.learn]) {
        palette.addItem({ command, category: 'engram' });
      }
    }
    app.contextMenu.addItem({ command: COMMANDS.provenance, selector: '.jp-FileEditor', rank: 50 });
    app.contextMenu.addItem({ command: COMMANDS.learn, selector: '.jp-FileEditor', rank: 51 });
    app.contextMenu.addItem({ command: COMMANDS.learn, selector: '.jp-MarkdownCell', rank: 51 });

    // Panels in notebooks (provenance) ask for a note through a DOM event; open it at the span here.
    document.addEventListener('engram:open', (event: Event) => {
      const detail = (event as CustomEvent).detail ?? {};
      if (typeof detail.path === 'string') {
        event.preventDefault();
        openAt({ path: detail.path, vault: detail.vault ?? null, cell: detail.cell_id ?? null,
          span: typeof detail.start === 'number' ? [detail.start, detail.end] : null });
      }
    });
    // Result links in kernel outputs carry their vault, cell and span: open the editor there, not the preview.
    document.addEventListener('click', (event: MouseEvent) => {
      const link = (event.target as Element | null)?.closest?.('a[data-engram-path]') as HTMLAnchorElement | null;
      if (!link || event.button !== 0 || event.ctrlKey || event.metaKey) {
        return;
      }
      event.preventDefault();
      event.stopPropagation();
      const d = link.dataset;
      openAt({ path: d.engramPath!, vault: d.engramVault ?? null, cell: d.engramCell ?? null,
        span: d.engramStart !== undefined && d.engramEnd !== undefined ? [Number(d.engramStart), Number(d.engramEnd)] : null });
    }, true);

    if (statusBar) {
      statusBar.registerStatusItem('engram-lab:stale', { item: status, align: 'left', rank: 10 });
    }
    void refreshStatus().then(() => sidebar.refresh());
    window.setInterval(() => void refreshStatus(), POLL_MS);
  }
};

export default plugin;

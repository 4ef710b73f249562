// The vault sidebar: the current vault (switchable), search with operators, and the notes as a folder tree
// with titles, live status badges and a filter.
import { Widget } from '@lumino/widgets';
import { requestAPI } from './api';
import { countByStatus, INote, IResult, resultTitle } from './logic';
import { ITarget } from './open';
import { cleanSnippet, describeFilters, highlight, IParsedQuery, parseQuery } from './operators';
import { buildTree, filterTree, IFolder, noteLabel, noteTooltip } from './tree';
import { VaultState } from './vault';

export type OpenTarget = (target: ITarget) => void;

interface ISearchReply {
  results: IResult[];
  notes?: string[];
  confidence?: number;
  no_good_match?: boolean;
}

const BADGES: Record<string, string> = { stale: 'stale', new: 'new', failed: 'failed', 'pending-review': 'pending review' };

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

function marked(text: string, query: IParsedQuery, className: string): HTMLElement {
  const node = el('span', className);
  for (const part of highlight(text, query)) {
    node.append(part.hit ? el('mark', 'jp-engram-hit', part.text) : document.createTextNode(part.text));
  }
  return node;
}

export class VaultSidebar extends Widget {
  private notes: INote[] = [];
  private readonly open = new Set<string>(); // folders the user expanded
  private readonly vaultName = el('span', 'jp-engram-vault-name');
  private readonly switcher = el('select', 'jp-engram-vault-switch');
  private readonly search = el('input', 'jp-engram-search');
  private readonly filters = el('div', 'jp-engram-filters');
  private readonly message = el('div', 'jp-engram-message');
  private readonly results = el('ol', 'jp-engram-results');
  private readonly filter = el('input', 'jp-engram-filter');
  private readonly summary = el('div', 'jp-engram-summary');
  private readonly tree = el('div', 'jp-engram-tree');

  constructor(private readonly openAt: OpenTarget, private readonly reindex: () => Promise<void>, private readonly vaults: VaultState) {
    super();
    this.id = 'engram-sidebar';
    this.title.caption = 'engram vault';
    this.addClass('jp-engram-sidebar');
    this.search.placeholder = 'Search… path: tag: after: "phrase"';
    this.search.title = 'Words to search for; narrow with path:folder, tag:name, after:2026-03, before:2026-06-01, "exact phrase"';
    this.search.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        void this.runSearch(this.search.value);
      }
    });
    this.filter.placeholder = 'Filter notes by path, title or status';
    this.filter.addEventListener('input', () => this.renderNotes());
    this.switcher.title = 'Switch to another vault this server has opened';
    this.switcher.addEventListener('change', () => {
      if (this.switcher.value) {
        void this.vaults.open(this.switcher.value).catch(error => (this.message.textContent = String(error)));
      }
    });
    const button = el('button', 'jp-engram-reindex jp-mod-styled', '↻ Re-index');
    button.title = 'Index the notes changed since the last run';
    button.addEventListener('click', () => void this.reindex());
    const vaultRow = el('div', 'jp-engram-vault');
    vaultRow.append(el('span', 'jp-engram-vault-icon'), this.vaultName, button);
    this.node.append(vaultRow, this.switcher, this.search, this.filters, this.message, this.results, this.filter, this.summary, this.tree);
    vaults.onChange(() => {
      this.results.replaceChildren();
      this.message.textContent = '';
      this.renderVault();
      void this.refresh();
    });
  }

  async refresh(): Promise<void> {
    this.renderVault();
    if (!this.vaults.current.vault) {
      this.notes = [];
      this.renderNotes();
      this.message.textContent = 'No vault open: run %engram open PATH in a notebook, or right-click a folder and choose "Open as engram vault".';
      return;
    }
    try {
      const data = await requestAPI<{ notes: INote[] }>('notes');
      this.notes = data.notes;
      this.renderNotes();
    } catch (error) {
      this.message.textContent = String(error);
    }
  }

  async runSearch(text: string): Promise<void> {
    this.results.replaceChildren();
    const query = parseQuery(text);
    this.filters.textContent = describeFilters(query);
    if (!text.trim()) {
      this.message.textContent = '';
      return;
    }
    if (query.error) {
      this.message.textContent = query.error;
      return;
    }
    this.message.textContent = 'searching…';
    try {
      const data = await requestAPI<ISearchReply>(`search?q=${encodeURIComponent(text)}&k=10&mode=full`);
      // What the search asked a model (the optional fact filter), or could not do as configured.
      const notes = (data.notes ?? []).join(' · ');
      const weak = data.no_good_match === true && data.results.length > 0;
      const head = !data.results.length ? 'no matching passage' : weak
        ? `no strong match (confidence ${data.confidence!.toFixed(2)}): the notes may not answer this`
        : data.confidence !== undefined ? `${data.results.length} passages · confidence ${data.confidence.toFixed(2)}` : '';
      this.message.textContent = [head, notes].filter(Boolean).join(' — ');
      this.message.classList.toggle('jp-engram-weak', weak);
      if (weak) {
        const show = el('a', 'jp-engram-show-weak', ` show the ${data.results.length} weak passages`);
        show.href = '#';
        show.addEventListener('click', event => {
          event.preventDefault();
          show.remove();
          this.renderResults(data.results, query);
        });
        this.message.append(show);
      } else {
        this.renderResults(data.results, query);
      }
    } catch (error) {
      this.message.textContent = String(error);
    }
  }

  private renderResults(results: IResult[], query: IParsedQuery): void {
    this.results.replaceChildren(...results.map(result => {
      const item = el('li', 'jp-engram-result');
      item.title = resultTitle(result);
      const link = el('a', 'jp-engram-result-link');
      link.href = '#';
      link.append(marked(result.path.split('/').pop() ?? result.path, query, 'jp-engram-result-name'));
      link.addEventListener('click', event => {
        event.preventDefault();
        this.openAt({ path: result.doc, cell: result.cell_id, span: result.span, vault: this.vaults.current.vault });
      });
      const where = [result.path.includes('/') ? result.path.slice(0, result.path.lastIndexOf('/')) : '', result.heading_path.join(' › ')]
        .filter(Boolean).join(' · ');
      item.append(link, el('div', 'jp-engram-where', where), marked(cleanSnippet(result.snippet), query, 'jp-engram-snippet'));
      if (result.superseded) {
        item.append(el('div', 'jp-engram-warn', result.superseded));
      }
      return item;
    }));
  }

  private renderVault(): void {
    const info = this.vaults.current;
    this.vaultName.textContent = info.name ?? 'no vault';
    this.vaultName.title = info.vault ? `${info.vault}\n(in the file browser: ${info.root_relative ?? 'outside the root'})` : '';
    const options = info.known.map(path => {
      const option = el('option', '', path.split('/').pop() ?? path);
      option.value = path;
      option.title = path;
      option.selected = path === info.vault;
      return option;
    });
    const hint = el('option', '', info.known.length > 1 ? 'Switch vault…' : 'Other vaults: right-click a folder → Open as engram vault');
    hint.value = '';
    hint.disabled = true;
    this.switcher.replaceChildren(hint, ...options);
    this.switcher.hidden = info.known.length < 2;
  }

  private renderNotes(): void {
    const counts = countByStatus(this.notes);
    this.summary.textContent = `${this.notes.length} notes: ` + Object.entries(counts).map(([status, n]) => `${n} ${status.replace("-", " ")}`).join(' · ');
    const shown = filterTree(this.notes, this.filter.value);
    const filtering = this.filter.value.trim() !== '';
    this.tree.replaceChildren(...this.renderFolder(buildTree(shown), filtering));
    if (filtering && !shown.length) {
      this.tree.append(el('div', 'jp-engram-message', 'no note matches the filter'));
    }
  }

  private renderFolder(folder: IFolder, expandAll: boolean): HTMLElement[] {
    const folders = folder.folders.map(child => {
      const details = el('details', 'jp-engram-folder');
      details.open = expandAll || this.open.has(child.path);
      details.addEventListener('toggle', () => (details.open ? this.open.add(child.path) : this.open.delete(child.path)));
      const summary = el('summary', 'jp-engram-folder-name', child.name);
      summary.title = `${child.path}: ${child.count} note${child.count === 1 ? '' : 's'}`;
      summary.append(el('span', 'jp-engram-count', String(child.count)));
      details.append(summary, ...this.renderFolder(child, expandAll));
      return details;
    });
    const notes = folder.notes.map(note => {
      const row = el('div', `jp-engram-note jp-engram-status-${note.status}`);
      row.title = noteTooltip(note);
      const link = el('a', 'jp-engram-note-link', noteLabel(note));
      link.href = '#';
      link.dataset.path = note.path;
      link.addEventListener('click', event => {
        event.preventDefault();
        this.openAt({ path: note.path, vault: this.vaults.current.vault });
      });
      row.append(el('span', 'jp-engram-dot'), link);
      if (BADGES[note.status]) {
        row.append(el('span', `jp-engram-badge jp-engram-badge-${note.status}`, BADGES[note.status]));
      }
      return row;
    });
    return [...folders, ...notes];
  }
}

// The vault sidebar: a search box with ranked results, the notes with their index status, and re-index.
import { Widget } from '@lumino/widgets';
import { requestAPI } from './api';
import { countByStatus, filterNotes, INote, IResult, resultTitle, statusLabel } from './logic';

export type OpenAt = (path: string, span: [number, number] | null, heading: string | null) => void;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

export class VaultSidebar extends Widget {
  private notes: INote[] = [];
  private readonly search = el('input', 'jp-engram-search');
  private readonly message = el('div', 'jp-engram-message');
  private readonly results = el('ol', 'jp-engram-results');
  private readonly list = el('ul', 'jp-engram-notes');
  private readonly summary = el('div', 'jp-engram-summary');

  constructor(private readonly openAt: OpenAt, private readonly reindex: () => Promise<void>) {
    super();
    this.id = 'engram-sidebar';
    this.title.caption = 'engram vault';
    this.addClass('jp-engram-sidebar');
    this.search.placeholder = 'Search the vault…';
    this.search.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        void this.runSearch(this.search.value);
      }
    });
    const button = el('button', 'jp-engram-reindex jp-mod-styled', 'Re-index');
    button.addEventListener('click', () => void this.reindex());
    const head = el('div', 'jp-engram-head');
    head.append(this.search, button);
    this.node.append(head, this.message, this.results, this.summary, this.list);
  }

  async refresh(): Promise<void> {
    try {
      const data = await requestAPI<{ notes: INote[] }>('notes');
      this.notes = data.notes;
      this.renderNotes();
    } catch (error) {
      this.message.textContent = String(error);
    }
  }

  async runSearch(query: string): Promise<void> {
    this.results.replaceChildren();
    if (!query.trim()) {
      return;
    }
    this.message.textContent = 'searching…';
    try {
      const data = await requestAPI<{ results: IResult[]; notes?: string[] }>(`search?q=${encodeURIComponent(query)}&k=10&mode=full`);
      // What the search asked a model (the optional fact filter), or could not do as configured.
      const notes = (data.notes ?? []).join(' · ');
      this.message.textContent = [data.results.length ? '' : 'no matching passage', notes].filter(Boolean).join(' — ');
      for (const result of data.results) {
        const item = el('li', 'jp-engram-result');
        const link = el('a', 'jp-engram-result-link', result.doc);
        link.title = resultTitle(result);
        link.href = '#';
        link.addEventListener('click', event => {
          event.preventDefault();
          this.openAt(result.path, result.span, result.heading);
        });
        item.append(link, el('div', 'jp-engram-snippet', result.snippet));
        if (result.superseded) {
          item.append(el('div', 'jp-engram-warn', result.superseded));
        }
        this.results.append(item);
      }
    } catch (error) {
      this.message.textContent = String(error);
    }
  }

  private renderNotes(): void {
    const counts = countByStatus(this.notes);
    this.summary.textContent = Object.entries(counts).map(([status, n]) => `${n} ${status}`).join(' · ');
    this.list.replaceChildren(
      ...filterNotes(this.notes, '').map(note => {
        const item = el('li', `jp-engram-note jp-engram-status-${note.status}`);
        const link = el('a', 'jp-engram-note-link', note.path);
        link.href = '#';
        link.addEventListener('click', event => {
          event.preventDefault();
          this.openAt(note.path, null, null);
        });
        item.append(link, el('span', 'jp-engram-note-meta', ` ${statusLabel(note)} · ${note.entities} entities · ${note.relations} relations`));
        return item;
      })
    );
  }
}

// The related-notes panel (right sidebar): for the note in the active editor, the notes related to it and why
// (links both ways, shared entities, similar text), from GET /engram/related; it follows the user's note switches.
import { Widget } from '@lumino/widgets';
import { requestAPI } from './api';
import { ITarget } from './open';
import { IRelatedNote, needsFetch, orderedReasons, reasonText, relatedTooltip } from './related';

interface IRelatedReply {
  path: string;
  vault: string;
  related: IRelatedNote[];
}

export class RelatedPanel extends Widget {
  private shown: { path: string; vault: string | null } | null = null;
  private asked = 0; // a slow answer for a note the user already left is dropped
  private readonly heading = document.createElement('div');
  private readonly list = document.createElement('ol');

  constructor(private readonly openAt: (target: ITarget) => void) {
    super();
    this.id = 'engram-related';
    this.title.caption = 'engram: notes related to the note in the editor';
    this.addClass('jp-engram-related');
    this.heading.className = 'jp-engram-related-heading';
    this.heading.textContent = 'Open a note of the vault to see its related notes.';
    this.list.className = 'jp-engram-related-list';
    this.node.append(this.heading, this.list);
  }

  /** Forget the list shown, so the next `showFor` asks again (after a re-index the links and vectors moved). */
  forget(): void {
    this.shown = null;
  }

  /** Show the notes related to `path` (vault-relative; null: the active tab is not a note, keep the list). */
  async showFor(path: string | null, vault: string | null): Promise<void> {
    if (!needsFetch(this.shown, path, vault) || path === null) {
      return;
    }
    this.shown = { path, vault };
    const ticket = ++this.asked;
    this.heading.textContent = `Related to ${path}…`;
    try {
      const reply = await requestAPI<IRelatedReply>(`related?path=${encodeURIComponent(path)}&k=12`);
      if (ticket === this.asked) {
        this.render(reply);
      }
    } catch (error) {
      if (ticket === this.asked) {
        this.list.replaceChildren();
        this.heading.textContent = String(error).replace(/^Error: /, '');
        this.shown = null; // ask again on the next switch (after a re-index, say)
      }
    }
  }

  private render(reply: IRelatedReply): void {
    this.heading.textContent = reply.related.length ? `Related to ${reply.path}` : `Nothing related to ${reply.path} yet`;
    this.list.replaceChildren(...reply.related.map(note => {
      const item = document.createElement('li');
      item.title = relatedTooltip(note);
      const link = document.createElement('a');
      link.className = 'jp-engram-related-note';
      link.textContent = note.title || note.path;
      link.href = '#';
      link.dataset.path = note.path;
      link.addEventListener('click', event => {
        event.preventDefault();
        this.openAt({ path: note.path, vault: reply.vault, cell: null, span: null });
      });
      const reasons = document.createElement('ul');
      reasons.className = 'jp-engram-related-reasons';
      for (const reason of orderedReasons(note.reasons)) {
        const line = document.createElement('li');
        line.dataset.kind = reason.kind;
        line.textContent = reasonText(reason);
        reasons.append(line);
      }
      item.append(link, reasons);
      return item;
    }));
  }
}

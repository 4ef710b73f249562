// The local-graph panel (right sidebar, next to Related): the graph around the note in the active editor, drawn
// by the notebook panels' own view (zoom, pan, filters by edge type and node kind). A click on a note opens it
// (the view's "engram:open" event, handled in index.ts), and the panel then follows to that note.
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { Widget } from '@lumino/widgets';
import { requestAPI } from './api';
import { clickedNode, graphQuery, IGraphNode, IMention, shownKey, viewModel } from './graph';

interface IGraphReply {
  path: string;
  vault: string;
  title: string;
  summary: string;
  graph: { nodes: IGraphNode[]; edges: unknown[] };
}

let view: Promise<any> | null = null;

/** The graph view module and its styles, from the server (the files the notebook panels load), once. */
function loadView(): Promise<any> {
  if (view === null) {
    const base = URLExt.join(ServerConnection.makeSettings().baseUrl, 'engram', 'view');
    const styles = document.createElement('link');
    styles.rel = 'stylesheet';
    styles.href = URLExt.join(base, 'panels.css');
    document.head.append(styles);
    view = import(/* webpackIgnore: true */ URLExt.join(base, 'activation.js'));
  }
  return view;
}

export class GraphPanel extends Widget {
  private wanted: { path: string; vault: string | null } | null = null;
  private shown = '';
  private asked = 0; // a slow answer for a note the user already left is dropped
  private depth = 1;
  private readonly heading = document.createElement('div');
  private readonly body = document.createElement('div');

  constructor() {
    super();
    this.id = 'engram-local-graph';
    this.title.caption = 'engram: the local graph of the note in the editor';
    this.addClass('jp-engram-graph-panel');
    this.heading.className = 'jp-engram-graph-heading';
    this.heading.textContent = 'Open a note of the vault to see its local graph.';
    const depth = document.createElement('select');
    depth.className = 'jp-engram-graph-depth';
    depth.title = 'how many steps from the note';
    depth.append(new Option('depth 1', '1', true, true), new Option('depth 2', '2'));
    depth.addEventListener('change', () => {
      this.depth = Number(depth.value);
      void this.load();
    });
    const bar = document.createElement('div');
    bar.className = 'jp-engram-graph-bar';
    bar.append(this.heading, depth);
    this.body.className = 'jp-engram-graph-body';
    this.node.append(bar, this.body);
  }

  /** Forget the graph shown, so the next `showFor` asks again (after a re-index). */
  forget(): void {
    this.shown = '';
  }

  /** Follow the note in the editor (null: the active tab is not a note, keep the graph); drawn when visible. */
  showFor(path: string | null, vault: string | null): void {
    if (path !== null) {
      this.wanted = { path, vault };
      void this.load();
    }
  }

  protected onAfterShow(msg: Parameters<Widget['processMessage']>[0]): void {
    super.onAfterShow(msg);
    void this.load();
  }

  private async load(): Promise<void> {
    const wanted = this.wanted;
    if (!wanted || !this.isVisible || shownKey(wanted.path, wanted.vault, this.depth) === this.shown) {
      return;
    }
    this.shown = shownKey(wanted.path, wanted.vault, this.depth);
    const ticket = ++this.asked;
    this.heading.textContent = `Local graph of ${wanted.path}…`;
    try {
      const [reply, module] = await Promise.all([requestAPI<IGraphReply>(graphQuery(wanted.path, this.depth)), loadView()]);
      if (ticket === this.asked) {
        this.draw(reply, module.default);
      }
    } catch (error) {
      if (ticket === this.asked) {
        this.body.replaceChildren();
        this.heading.textContent = String(error).replace(/^Error: /, '');
        this.shown = ''; // ask again on the next switch (after a re-index, say)
      }
    }
  }

  private draw(reply: IGraphReply, render: { render: (args: { model: unknown; el: HTMLElement }) => void }): void {
    this.heading.textContent = ''; // the view heads itself: title and summary
    const el = document.createElement('div');
    this.body.replaceChildren(el);
    const model = viewModel({ graph: reply.graph, title: reply.title, summary: reply.summary, vault: reply.vault, selected: '', mentions: [] },
      (message, m) => {
        const clicked = message.type === 'node' ? clickedNode(reply.graph.nodes, message.id) : null;
        if (!clicked) {
          return;
        }
        m.set('selected', clicked.node.label);
        m.set('mentions', clicked.mentions);
        if (clicked.ask) {
          requestAPI<{ mentions: IMention[] }>(clicked.ask)
            .then(answer => m.set('mentions', answer.mentions))
            .catch(error => m.set('selected', `${clicked.node.label}: ${String(error).replace(/^Error: /, '')}`));
        }
      });
    render.render({ model, el });
  }
}

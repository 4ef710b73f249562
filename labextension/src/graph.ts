// Pure logic of the local-graph panel (no DOM, unit-tested under Node). The panel draws with the notebook
// panels' own graph view (engram_lab/jupyter/static/activation.js, served at /engram/view/activation.js), which
// talks to an anywidget model: `viewModel` stands in for one, so the same view serves the notebook and the lab.

export interface IGraphNode {
  id: number;
  label: string;
  type: 'passage' | 'entity' | string;
  kind: string;
  path: string | null;
}

export interface IMention {
  path: string;
  cell_id?: string | null;
  start: number | null;
  end: number | null;
  surface: string;
}

type Listener = () => void;

export interface IViewModel {
  get(key: string): any;
  set(key: string, value: unknown): void;
  on(event: string, listener: Listener): void;
  send(message: { type?: string; id?: number }): void;
}

/** An anywidget-like model over `state`: `set` fires the view's "change:KEY" listeners; `send` goes to `onSend`. */
export function viewModel(state: Record<string, unknown>, onSend: (message: { type?: string; id?: number }, model: IViewModel) => void): IViewModel {
  const values: Record<string, unknown> = { ...state };
  const listeners = new Map<string, Listener[]>();
  const model: IViewModel = {
    get: key => values[key],
    set: (key, value) => {
      values[key] = value;
      for (const listener of listeners.get(`change:${key}`) ?? []) {
        listener();
      }
    },
    on: (event, listener) => listeners.set(event, [...(listeners.get(event) ?? []), listener]),
    send: message => onSend(message, model)
  };
  return model;
}

/** The API path of the local graph around a note (depth 1 or 2). */
export function graphQuery(path: string, depth: number, limit = 40): string {
  return `graph?path=${encodeURIComponent(path)}&depth=${depth}&limit=${limit}`;
}

/** What a click on a node shows: an entity's mentions come from the server (`ask`), a note is its own line. */
export function clickedNode(nodes: IGraphNode[], id: number | undefined): { node: IGraphNode; ask: string | null; mentions: IMention[] } | null {
  const node = nodes.find(n => n.id === id);
  if (!node) {
    return null;
  }
  if (node.type === 'entity') {
    return { node, ask: `graph?mentions=${node.id}`, mentions: [] };
  }
  return { node, ask: null, mentions: [{ path: node.path ?? '', start: null, end: null, surface: '(the note itself)' }] };
}

/** A key for what the panel shows: it asks again when the note, the vault or the depth changed. */
export function shownKey(path: string, vault: string | null, depth: number): string {
  return JSON.stringify([vault, path, depth]);
}

// Pure logic of the related-notes panel (no DOM, unit-tested under Node): which note the active editor shows,
// and how a related note's reasons read.

export interface IRelatedReason {
  kind: 'links to' | 'linked from' | 'shared entities' | 'similar text' | string;
  detail: string;
  weight: number;
}

export interface IRelatedNote {
  path: string;
  title: string;
  score: number;
  reasons: IRelatedReason[];
}

/** A file-browser path as a note path of the vault at `folder` (root-relative; '.' is the root), else null. */
export function notePathIn(labPath: string, folder: string | null): string | null {
  if (folder === null || !labPath) {
    return null;
  }
  if (folder === '.' || folder === '') {
    return labPath;
  }
  return labPath.startsWith(folder + '/') ? labPath.slice(folder.length + 1) : null;
}

/** Whether the panel must ask again: the note changed, or the vault did (the same path in another vault). */
export function needsFetch(shown: { path: string; vault: string | null } | null, path: string | null, vault: string | null): boolean {
  if (path === null) {
    return false;
  }
  return shown === null || shown.path !== path || shown.vault !== vault;
}

/** One reason as a short line: "links to it", "shared: A, B", "similar text (cosine 0.64)". */
export function reasonText(reason: IRelatedReason): string {
  switch (reason.kind) {
    case 'links to':
      return '→ this note links to it';
    case 'linked from':
      return '← it links to this note';
    case 'shared entities':
      return `shares ${reason.detail}`;
    case 'similar text':
      return `similar text (${reason.detail})`;
    default:
      return `${reason.kind}: ${reason.detail}`;
  }
}

/** Reasons ordered for reading: links first, then shared entities, then similar text (then anything new). */
export function orderedReasons(reasons: IRelatedReason[]): IRelatedReason[] {
  const rank = (kind: string) => ['links to', 'linked from', 'shared entities', 'similar text'].indexOf(kind);
  const key = (kind: string) => (rank(kind) === -1 ? 99 : rank(kind));
  return [...reasons].sort((a, b) => key(a.kind) - key(b.kind));
}

/** The hover text of a related note: its path and its score with each reason's part, so nothing is opaque. */
export function relatedTooltip(note: IRelatedNote): string {
  const parts = orderedReasons(note.reasons).map(r => `${r.kind} +${r.weight.toFixed(2)}`);
  return `${note.path}\nscore ${note.score.toFixed(2)} = ${parts.join(' ')}`;
}

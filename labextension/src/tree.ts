// The vault as a folder tree of notes (pure: no DOM), and the sidebar's filter over it.
import { INote, statusLabel } from './logic';
import { cleanSnippet } from './operators';

export interface IFolder {
  name: string;
  path: string; // '' for the vault root
  folders: IFolder[];
  notes: INote[];
  count: number; // notes in this folder and below
}

/** A note's label: its title (frontmatter title or first heading), else its file name. */
export function noteLabel(note: INote): string {
  const title = cleanSnippet(note.title ?? ''); // a first heading may hold a link: `Rust RFCs - [RFC Book](https://…)`
  return title && title !== note.path ? title : note.path.split('/').pop() ?? note.path;
}

/** What hovering a note shows: path, status and its counts. */
export function noteTooltip(note: INote): string {
  return `${note.path}\n${statusLabel(note)}\n${note.entities} entities · ${note.relations} relations`;
}

/** Folders first (by name), then notes by label; each folder counts the notes below it. */
export function buildTree(notes: INote[]): IFolder {
  const root: IFolder = { name: '', path: '', folders: [], notes: [], count: 0 };
  for (const note of notes) {
    const parts = note.path.split('/');
    let folder = root;
    folder.count += 1;
    for (const part of parts.slice(0, -1)) {
      let child = folder.folders.find(f => f.name === part);
      if (!child) {
        child = { name: part, path: folder.path ? `${folder.path}/${part}` : part, folders: [], notes: [], count: 0 };
        folder.folders.push(child);
      }
      child.count += 1;
      folder = child;
    }
    folder.notes.push(note);
  }
  const sort = (folder: IFolder): void => {
    folder.folders.sort((a, b) => a.name.localeCompare(b.name));
    folder.notes.sort((a, b) => noteLabel(a).localeCompare(noteLabel(b)));
    folder.folders.forEach(sort);
  };
  sort(root);
  return root;
}

/** Notes whose path, title or status holds every word of the filter (case-insensitive). */
export function filterTree(notes: INote[], text: string): INote[] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) {
    return notes;
  }
  return notes.filter(n => {
    const hay = `${n.path} ${n.title} ${n.status}`.toLowerCase();
    return words.every(w => hay.includes(w));
  });
}

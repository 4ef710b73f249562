// Which vault the sidebar shows (the server's current one) and where any vault's notes live in the file browser.
import { PathExt } from '@jupyterlab/coreutils';
import { requestAPI } from './api';

export interface IVaultInfo {
  vault: string | null; // absolute path on the server
  name: string | null;
  root_relative: string | null; // as the file browser names it; null when outside the server root
  known: string[];
}

export class VaultState {
  private info: IVaultInfo = { vault: null, name: null, root_relative: null, known: [] };
  private readonly places = new Map<string, string | null>(); // absolute vault path -> root-relative folder
  private readonly listeners: ((info: IVaultInfo) => void)[] = [];

  get current(): IVaultInfo {
    return this.info;
  }

  /** Called when the server's current vault changes (a kernel's %engram open, the file browser, the sidebar). */
  onChange(listener: (info: IVaultInfo) => void): void {
    this.listeners.push(listener);
  }

  async refresh(): Promise<IVaultInfo> {
    this.update(await requestAPI<IVaultInfo>('vault'));
    return this.info;
  }

  async open(path: string): Promise<IVaultInfo> {
    this.update(await requestAPI<IVaultInfo>('vault', { method: 'POST', body: JSON.stringify({ path }) }));
    return this.info;
  }

  /** A vault's note as a file-browser path; the link's own vault when it names one, else the current vault. */
  async labPath(notePath: string, vault?: string | null): Promise<string> {
    let folder = this.info.root_relative;
    if (vault && vault !== this.info.vault) {
      if (!this.places.has(vault)) {
        this.places.set(vault, (await requestAPI<IVaultInfo>(`vault?path=${encodeURIComponent(vault)}`)).root_relative);
      }
      folder = this.places.get(vault) ?? null;
    }
    if (folder === null && (vault ?? this.info.vault)) {
      throw new Error(`${vault ?? this.info.vault} is outside JupyterLab's root folder; its notes cannot be opened here`);
    }
    return !folder || folder === '.' ? notePath : PathExt.join(folder, notePath);
  }

  private update(info: IVaultInfo): void {
    const switched = info.vault !== this.info.vault;
    this.info = info;
    if (info.vault) {
      this.places.set(info.vault, info.root_relative);
    }
    if (switched) {
      this.listeners.forEach(listener => listener(info));
    }
  }
}

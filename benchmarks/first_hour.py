"""A new user's first hour in JupyterLab (issue 21), scripted in chromium on a copy of a real vault: open the lab,
open the vault ("Open as engram vault" in the file browser), index it with progress, search with an operator,
open a result at its span, see its related notes, open its local graph. Times each step (wall clock, from the
action to what the user waits for on screen) and saves one screenshot per step.

    python -m benchmarks.first_hour [--vault ../shared/data/rust-rfcs/vault] [--out .bench/first-hour]
                                    [--warm-cache PATH] [--query 'after:2020 inline assembly']

The vault is copied to a temporary folder (the lab's root) and indexed there, never in place. ``--warm-cache``
copies an embedding cache (``.engram/vectors/cache.sqlite`` of an earlier index of the same notes) into the copy
first: the index step then embeds nothing, and its time is NOT a cold index (on the 2-core box a cold index of
rust-rfcs embeds ~13,000 chunks in about 25 minutes). Prints a Markdown table; skips, saying why, when the vault,
chromium or Playwright is missing.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
STEP_TIMEOUT_MS = 120_000
INDEX_TIMEOUT_S = 3600  # a cold index of 640 notes is ~25 minutes here


def _skip(why: str) -> None:
    print(f"first hour: skipped: {why}")
    sys.exit(0)


class Steps:
    """Each step's wall time and its screenshot."""

    def __init__(self, page, out: Path) -> None:
        self.page, self.out, self.rows = page, out, []

    def run(self, name: str, action, shot: str) -> None:
        started = time.perf_counter()
        try:
            extra = action()
        except Exception:
            self.page.screenshot(path=str(self.out / f"failed-{shot}"))
            raise
        seconds = time.perf_counter() - started
        self.page.screenshot(path=str(self.out / shot))
        self.rows.append((name, seconds, extra, shot))
        print(f"  {name}: {seconds:.1f} s", file=sys.stderr, flush=True)

    def table(self) -> str:
        lines = ["| step | wall s | what was on screen | screenshot |", "|---|---|---|---|"]
        lines += [f"| {name} | {seconds:.1f} | {what} | {shot} |" for name, seconds, what, shot in self.rows]
        return "\n".join(lines)


def first_hour(url: str, vault_name: str, query: str, out: Path) -> Steps:
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import CHROMIUM_ARGS

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1500, "height": 950})
        page.set_default_timeout(STEP_TIMEOUT_MS)
        steps = Steps(page, out)
        sidebar = page.locator("#engram-sidebar")
        status = page.locator(".jp-engram-status")
        selection = page.locator(".jp-FileEditor .cm-selectionBackground:visible")

        def open_lab():
            page.goto(f"{url}/lab")
            page.locator(".lm-TabBar-tab", has=page.locator(".jp-engram-icon")).first.click()
            sidebar.locator(".jp-engram-summary", has_text="notes:").wait_for()
            return f"sidebar: vault {sidebar.locator('.jp-engram-vault-name').inner_text()!r}"

        def open_vault():
            page.locator(".jp-SideBar .lm-TabBar-tab[data-id='filebrowser']").first.click()
            page.locator("#filebrowser .jp-DirListing-item", has_text=vault_name).first.click(button="right")
            page.locator(".lm-Menu-itemLabel", has_text="Open as engram vault").first.click()
            sidebar.locator(".jp-engram-vault-name", has_text=vault_name).wait_for()  # the sidebar comes to the front
            sidebar.locator(".jp-engram-note").first.wait_for(state="attached")
            return sidebar.locator(".jp-engram-summary").inner_text()

        def index():
            sidebar.locator(".jp-engram-reindex").click()
            seen, shot = [], False
            deadline = time.monotonic() + INDEX_TIMEOUT_S
            while time.monotonic() < deadline:
                text = status.inner_text()
                if text.startswith("engram: indexed in"):
                    break
                if "indexing" in text and (not seen or seen[-1] != text):
                    seen.append(text)
                    if not shot and "/" in text:  # the progress, as the user sees it mid-run
                        page.screenshot(path=str(out / "3a-index-progress.png"))
                        shot = True
                page.wait_for_timeout(250)
            else:
                raise TimeoutError(f"no index report after {INDEX_TIMEOUT_S} s; last status {status.inner_text()!r}")
            sidebar.locator(".jp-engram-summary", has_text="indexed", has_not_text=" new").wait_for()  # badges follow
            stages = list(dict.fromkeys(re.sub(r"^engram: indexing,? ?| ?\d+/\d+", "", text).strip() for text in seen))
            progress = " → ".join(stage for stage in stages if stage not in ("", "…"))
            return (f"{status.inner_text().removeprefix('engram: ')}; status bar showed {progress} ({len(seen)} updates); "
                    f"sidebar {sidebar.locator('.jp-engram-summary').inner_text()}")

        def search():
            box = sidebar.locator(".jp-engram-search")
            box.fill(query)
            box.press("Enter")
            sidebar.locator(".jp-engram-result").first.wait_for()
            first = sidebar.locator(".jp-engram-result").first.get_attribute("title")
            return f"{sidebar.locator('.jp-engram-message').inner_text()}; {sidebar.locator('.jp-engram-filters').inner_text()}; first: {first}"

        opened = {}

        def open_result():
            result = sidebar.locator(".jp-engram-result-link").first
            name = result.inner_text()
            result.click()
            page.locator(".lm-DockPanel .lm-TabBar-tab.lm-mod-current", has_text=name).first.wait_for()
            selection.first.wait_for()
            opened["name"] = name
            return f"{name} in the editor, the span selected"

        def panel(tab_icon, selector, ready):
            def show():
                page.locator(".lm-TabBar-tab", has=page.locator(tab_icon)).first.click()
                box = page.locator(selector)
                box.locator(ready[0], has_text=opened["name"]).wait_for()
                box.locator(ready[1]).first.wait_for(state="attached")
                return box
            return show

        def related():
            box = panel(".jp-engram-related-icon", "#engram-related", (".jp-engram-related-heading", ".jp-engram-related-note"))()
            return f"{box.locator('.jp-engram-related-note').count()} related notes"

        def graph():
            box = panel(".jp-engram-graph-icon", "#engram-local-graph", (".engram-graph .title", "circle.centre"))()
            return f"{box.locator('circle').count()} nodes, {box.locator('line').count()} edges; {box.locator('.summary').inner_text()}"

        steps.run("1. open the lab (page load to the engram sidebar)", open_lab, "1-lab.png")
        try:  # the "official Jupyter news?" toast, untimed: a user dismisses it once
            page.get_by_role("button", name="No", exact=True).first.click(timeout=10_000)
        except Exception:  # noqa: BLE001 (playwright's TimeoutError): no toast this time
            pass
        steps.run(f"2. open the vault (file browser: right-click {vault_name}, Open as engram vault)", open_vault, "2-vault-opened.png")
        steps.run("3. index with progress (Re-index to the report in the status bar)", index, "3b-indexed.png")
        steps.run(f"4. search with an operator (`{query}`)", search, "4-search.png")
        steps.run("5. open the first result at its span in the editor", open_result, "5-result-at-span.png")
        page.wait_for_timeout(1_000)  # CodeMirror can drop a selection a moment later: it must still be there
        assert selection.count() > 0, "the span was selected, then the selection was lost"
        page.screenshot(path=str(out / "5-result-at-span.png"))
        steps.run("6. related notes of that note (Related tab)", related, "6-related.png")
        steps.run("7. its local graph (Graph tab)", graph, "7-graph.png")
        browser.close()
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT.parent / "shared" / "data" / "rust-rfcs" / "vault")
    parser.add_argument("--out", type=Path, default=ROOT / ".bench" / "first-hour")
    parser.add_argument("--warm-cache", type=Path, help="an embedding cache.sqlite of an earlier index of the same notes")
    parser.add_argument("--query", default="after:2020 inline assembly")
    args = parser.parse_args()
    if not args.vault.is_dir():
        _skip(f"{args.vault} not found")
    if not CHROMIUM.exists():
        _skip("Debian chromium is not installed (apt-get install -y chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _skip("Playwright is not installed (pip install -e '.[test]')")
    if args.warm_cache and not args.warm_cache.is_file():
        sys.exit(f"--warm-cache {args.warm_cache}: no such file")
    from tests.jupyter_process import jupyter

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="first-hour-") as tmp:
        root = Path(tmp)
        vault = root / "rust-rfcs"
        shutil.copytree(args.vault, vault, ignore=shutil.ignore_patterns(".engram"))
        if args.warm_cache:
            (vault / ".engram" / "vectors").mkdir(parents=True)
            shutil.copy(args.warm_cache, vault / ".engram" / "vectors" / "cache.sqlite")
        notes = sum(1 for _ in vault.rglob("*.md"))
        extra = ["--ServerApp.disable_check_xsrf=True", "--LabApp.news_url=",
                 "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        # No vault configured: as for a user who starts `jupyter lab` in the folder that holds the vault.
        with jupyter(root, app="jupyter-lab", env={"JUPYTERLAB_SETTINGS_DIR": str(root / ".lab-settings"), "ENGRAM_VAULT": ""},
                     extra=extra) as url:
            steps = first_hour(url, vault.name, args.query, args.out)
    cache = f"warm embedding cache ({args.warm_cache})" if args.warm_cache else "cold embedding cache"
    print(f"\n### First hour in JupyterLab: {args.vault} ({notes} notes, copied), {cache}\n")
    print(steps.table())
    print(f"\nscreenshots: {args.out}")


if __name__ == "__main__":
    main()

"""Notebook 01 in a real JupyterLab and chromium: results and panels render; a click on "distinct" writes the ledger."""

from __future__ import annotations

import json

import pytest

from engram_lab.resolve.service import resolution_state

pytestmark = pytest.mark.slow
RUN_TIMEOUT_MS = 240_000


def _shot(locator, path):
    locator.scroll_into_view_if_needed()
    locator.screenshot(path=str(path))


def _span_selected(page, shot):
    """The editor in front shows a selection, and still shows it a moment later: CodeMirror resets a selection
    the browser did not take when a hidden editor gets focus, so a glimpse of one is not enough."""
    selection = page.locator(".jp-FileEditor .cm-selectionBackground:visible")
    try:
        selection.first.wait_for(timeout=60_000)
        page.wait_for_timeout(1_000)
        assert selection.count() > 0, "the span was selected, then the selection was lost"
    finally:
        page.screenshot(path=str(shot))


def _run_all(page, artifacts):
    """Run > Run All Cells once the kernel is idle; retried if no cell starts (a click lost while Lab was busy)."""
    page.locator(".jp-StatusBar-TextItem", has_text="Idle").first.wait_for(state="attached", timeout=120_000)
    for _ in range(3):
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        try:
            page.locator(".jp-InputArea-prompt", has_text="[1]").first.wait_for(state="attached", timeout=30_000)
            return
        except Exception:  # noqa: BLE001 (playwright's TimeoutError): try the menu again
            page.keyboard.press("Escape")
    page.screenshot(path=str(artifacts / "01-run-all-failed.png"))
    raise AssertionError("Run All Cells did not start the notebook; see 01-run-all-failed.png")


def document(page, name):
    """The main-area widget of the tab named ``name``: JupyterLab restores the tabs earlier tests left open
    (notebook 05, notes), so a bare ``.jp-Notebook``, output or panel may be theirs."""
    tab = page.locator(".lm-DockPanel .lm-TabBar-tab", has_text=name).first
    tab.wait_for(timeout=60_000)
    return page.locator(f"[id='{tab.get_attribute('data-id')}']")


def run_cells(lab, browser, artifacts, name, cells, viewport):
    """Write a notebook of these code cells into the lab, open it in a new page and run it: (page, its widget)."""
    code = [{"cell_type": "code", "execution_count": None, "id": f"{name}-{i}", "metadata": {}, "outputs": [], "source": source}
            for i, source in enumerate(cells)]
    kernel = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    (lab["root"] / f"{name}.ipynb").write_text(json.dumps({"cells": code, "metadata": kernel, "nbformat": 4, "nbformat_minor": 5}))
    page = browser.new_page(viewport=viewport)
    page.goto(f"{lab['url']}/lab/tree/{name}.ipynb")
    page.locator(".lm-DockPanel .lm-TabBar-tab.lm-mod-current", has_text=name).first.wait_for(timeout=60_000)
    notebook = document(page, name)  # tabs earlier tests left open come back too: look only in this one
    notebook.locator(".jp-Notebook").wait_for(timeout=60_000)
    _run_all(page, artifacts)
    return page, notebook


def test_notebook_01_renders_results_and_panels(lab, browser, artifacts):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{lab['url']}/lab/tree/01-quickstart.ipynb")
    page.locator(".lm-DockPanel .lm-TabBar-tab.lm-mod-current", has_text="01-quickstart").first.wait_for(timeout=60_000)
    notebook = document(page, "01-quickstart")
    notebook.locator(".jp-Notebook").wait_for(timeout=60_000)
    _run_all(page, artifacts)

    results = notebook.locator(".engram-view table").first
    results.wait_for(state="attached", timeout=RUN_TIMEOUT_MS)
    assert "sensor" in results.inner_text().lower()
    _shot(results, artifacts / "01-search-results.png")

    provenance = notebook.locator(".engram-panel pre.note mark").first
    provenance.wait_for(state="attached", timeout=RUN_TIMEOUT_MS)
    assert provenance.inner_text().strip()
    _shot(notebook.locator(".engram-panel", has=page.locator("pre.note")).first, artifacts / "01-provenance-panel.png")

    activation = notebook.locator(".engram-panel svg circle.entity").first  # a note would open in the editor
    activation.wait_for(state="attached", timeout=RUN_TIMEOUT_MS)
    activation.scroll_into_view_if_needed()
    activation.dispatch_event("click")  # nodes may overlap: click this one, whatever lies on top
    panel = notebook.locator(".engram-panel", has=page.locator("svg")).first
    panel.locator("b").first.wait_for(state="attached", timeout=30_000)  # the clicked node's mentions
    _shot(panel, artifacts / "01-activation-panel.png")

    # The last cell shows the review panel: click "distinct" on the first pair.
    distinct = notebook.locator(".engram-panel button[data-action='distinct']").first
    distinct.wait_for(state="attached", timeout=RUN_TIMEOUT_MS)
    review = notebook.locator(".engram-panel", has=page.locator("button[data-action='distinct']")).first
    _shot(review, artifacts / "01-review-panel-before.png")
    distinct.click()
    notebook.locator(".engram-panel", has_text="recorded").first.wait_for(state="attached", timeout=60_000)
    _shot(notebook.locator(".engram-panel", has_text="recorded").first, artifacts / "01-review-panel-after.png")
    page.screenshot(path=str(artifacts / "01-notebook.png"), full_page=False)

    # A result's link carries its vault and span: the extension opens the editor with the span selected
    # (the href, relative to the notebook, still opens the note where the extension is absent).
    link = results.locator("a[data-engram-path]").first
    assert link.get_attribute("data-engram-vault") == str(lab["root"] / "demo-vault") and link.get_attribute("data-engram-start")
    link.scroll_into_view_if_needed()
    link.click()
    _span_selected(page, artifacts / "01-note-opened-at-span.png")

    # With the lab extension installed, the provenance panel's link opens the note with the span selected,
    # also when that note is already open in a tab behind the notebook (here: when it is the result above).
    page.locator(".lm-TabBar-tab", has_text="01-quickstart").first.click()
    panel_link = notebook.locator(".engram-panel a.open").first
    note_name = panel_link.inner_text().split("#")[0].split("/")[-1]
    panel_link.scroll_into_view_if_needed()
    panel_link.click()
    page.locator(".lm-TabBar-tab.lm-mod-current", has_text=note_name).first.wait_for(timeout=60_000)
    _span_selected(page, artifacts / "01-provenance-link-opened.png")

    state = resolution_state(lab["root"] / "demo-vault")
    assert any(d.actor == "user" and d.verdict == "distinct" for d in state.judgments.values())
    page.close()

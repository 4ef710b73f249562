"""One vault everywhere and a sidebar worthy of a vault (issue 21, items 1 and 2), in chromium: the folder tree
with titles, filter and badges at the default width; search with operators, highlighted words and clean
snippets; "Open as engram vault" in the file browser; a kernel's %engram open switching the sidebar back;
kernel result links opening the editor at the span, for a Markdown note and a notebook cell."""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.browser.test_lab_notebook import _span_selected, document

pytestmark = pytest.mark.slow

NOTEBOOK = {
    "cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "outputs": [], "execution_count": None, "source": src}
              for i, src in enumerate(["%load_ext engram_lab", "%engram open demo-vault",
                                       '%engram search "Salt-wedge position isohaline Mill Reach" --k 3 --mode keyword',
                                       '%engram search "Which sensors replaced the Halden CT-200?" --k 3 --mode keyword'])],
    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}


def _shot(locator, path):
    locator.scroll_into_view_if_needed()
    locator.screenshot(path=str(path))


def _vault(lab) -> dict:
    with urllib.request.urlopen(f"{lab['url']}/engram/vault", timeout=30) as response:
        return json.loads(response.read())


def _open_sidebar(page, lab):
    # ?reset: a fresh layout, not the tabs earlier tests left open (the file browser would follow them into a
    # vault's subfolder, away from the folders this test right-clicks).
    page.goto(f"{lab['url']}/lab?reset")
    tab = page.locator(".lm-TabBar-tab", has=page.locator(".jp-engram-icon")).first
    tab.wait_for(timeout=60_000)
    tab.click()
    page.locator(".jp-engram-note").first.wait_for(state="attached", timeout=60_000)  # folders start closed
    return page.locator("#engram-sidebar")


def test_tree_filter_badges_and_operator_search(lab, browser, artifacts):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    sidebar = _open_sidebar(page, lab)
    assert sidebar.locator(".jp-engram-vault-name").inner_text() == "demo-vault"
    folders = sidebar.locator(".jp-engram-folder-name")
    assert any(t.startswith("meetings") for t in folders.all_inner_texts())
    # No sideways overflow at the default width; the Re-index button is whole.
    assert sidebar.evaluate("n => n.scrollWidth <= n.clientWidth + 1")
    button = sidebar.locator(".jp-engram-reindex").bounding_box()
    box = sidebar.bounding_box()
    assert button["x"] + button["width"] <= box["x"] + box["width"] + 1
    meetings = sidebar.locator("summary", has_text="meetings").first
    assert "notes" in meetings.get_attribute("title")  # counts on hover
    meetings.click()
    kickoff = sidebar.locator(".jp-engram-note", has_text="Kickoff").first  # titles, not paths
    kickoff.wait_for(timeout=10_000)
    assert "entities" in kickoff.get_attribute("title")
    _shot(sidebar, artifacts / "21-sidebar-tree.png")

    # A badge follows an edit made outside the sidebar, without a reload.
    note = lab["root"] / "demo-vault" / "meetings" / "2026-01-14-kickoff.md"
    note.write_text(note.read_text() + "\nA late addition.\n")
    sidebar.locator(".jp-engram-status-stale", has_text="Kickoff").first.wait_for(timeout=30_000)

    sidebar.locator(".jp-engram-filter").fill("midterm")
    assert sidebar.locator(".jp-engram-note").count() == 1
    _shot(sidebar, artifacts / "21-sidebar-filtered.png")
    sidebar.locator(".jp-engram-filter").fill("")

    search = sidebar.locator(".jp-engram-search")
    search.fill("sensor CT-200 path:meetings")
    search.press("Enter")
    sidebar.locator(".jp-engram-result").first.wait_for(timeout=120_000)
    assert sidebar.locator(".jp-engram-filters").inner_text() == "filters: path:meetings"
    titles = [r.get_attribute("title") for r in sidebar.locator(".jp-engram-result").all()]
    assert titles and all(t.startswith("meetings/") for t in titles)
    assert sidebar.locator(".jp-engram-result mark.jp-engram-hit").count() > 0  # query words highlighted
    snippets = " ".join(sidebar.locator(".jp-engram-snippet").all_inner_texts())
    assert "##" not in snippets and "[[" not in snippets
    _shot(sidebar, artifacts / "21-sidebar-operator-search.png")
    search.fill("sensor after:2026-13")
    search.press("Enter")
    assert "is not a date" in sidebar.locator(".jp-engram-message").inner_text()
    page.close()


def test_open_as_vault_then_a_kernel_switches_back_and_links_open_at_the_span(lab, browser, artifacts):
    second = lab["root"] / "second-vault"
    second.mkdir(exist_ok=True)
    (second / "buoys.md").write_text("# Buoy log\n\nBuoy B7 drifted north in April.\n")
    (lab["root"] / "21-one-vault.ipynb").write_text(json.dumps(NOTEBOOK))
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    sidebar = _open_sidebar(page, lab)

    # The file browser's context menu: "Open as engram vault".
    page.locator(".jp-SideBar .lm-TabBar-tab[data-id='filebrowser']").first.click()
    folder = page.locator("#filebrowser .jp-DirListing-item", has_text="second-vault").first
    folder.wait_for(timeout=30_000)
    folder.click(button="right")
    page.locator(".lm-Menu-itemLabel", has_text="Open as engram vault").first.click()
    sidebar.locator(".jp-engram-vault-name", has_text="second-vault").wait_for(timeout=30_000)
    sidebar.locator(".jp-engram-note", has_text="buoys.md").first.wait_for(timeout=30_000)  # new: not indexed yet
    assert sidebar.locator(".jp-engram-badge-new").count() == 1
    _shot(sidebar, artifacts / "21-sidebar-second-vault.png")
    assert _vault(lab)["name"] == "second-vault"

    # A notebook's %engram open tells the server: the sidebar follows the kernel's vault.
    page.goto(f"{lab['url']}/lab/tree/21-one-vault.ipynb")
    page.locator(".lm-DockPanel .lm-TabBar-tab.lm-mod-current", has_text="21-one-vault").first.wait_for(timeout=60_000)
    notebook = document(page, "21-one-vault")
    notebook.locator(".jp-Notebook").wait_for(timeout=60_000)
    page.locator(".jp-StatusBar-TextItem", has_text="Idle").first.wait_for(state="attached", timeout=120_000)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    notebook.locator(".jp-OutputArea-output", has_text="the JupyterLab sidebar now shows this vault").first.wait_for(timeout=120_000)
    assert _vault(lab)["name"] == "demo-vault"
    page.locator(".jp-engram-vault-name", has_text="demo-vault").first.wait_for(state="attached", timeout=30_000)

    # A result link in a notebook output opens the editor at the span (a Markdown note)...
    links = notebook.locator(".jp-OutputArea-output a[data-engram-path]")
    links.nth(3).wait_for(timeout=120_000)
    note_link = notebook.locator(".jp-OutputArea-output a[data-engram-path$='.md']").last
    assert note_link.get_attribute("data-engram-vault") == str(lab["root"] / "demo-vault")
    note_link.scroll_into_view_if_needed()
    note_link.click()
    page.locator(".lm-DockPanel .lm-TabBar-tab.lm-mod-current", has_text=note_link.get_attribute("data-engram-path").split("/")[-1]).first.wait_for(timeout=60_000)
    _span_selected(page, artifacts / "21-kernel-link-opened-editor-at-span.png")

    # ...and a notebook note at its cell, the Markdown cell in edit mode with the span selected.
    page.locator(".lm-TabBar-tab", has_text="21-one-vault").first.click()
    cell_link = notebook.locator(".jp-OutputArea-output a[data-engram-cell]").first
    assert cell_link.get_attribute("data-engram-path") == "notebooks/freshet-exploration.ipynb"
    cell_link.scroll_into_view_if_needed()
    cell_link.click()
    page.locator(".lm-TabBar-tab.lm-mod-current", has_text="freshet-exploration").first.wait_for(timeout=60_000)
    active = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell.jp-mod-active").first
    active.locator(".cm-selectionBackground").first.wait_for(state="attached", timeout=60_000)
    assert "Salt-wedge" in active.inner_text()
    page.screenshot(path=str(artifacts / "21-kernel-link-opened-notebook-cell.png"))
    page.close()

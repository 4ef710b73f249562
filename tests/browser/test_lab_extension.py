"""The built JupyterLab extension in chromium: the sidebar lists the vault, searches, and a click opens the note at the span."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


def test_sidebar_lists_searches_and_opens_a_note_at_the_span(lab, browser, artifacts):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{lab['url']}/lab")
    tab = page.locator(".lm-TabBar-tab", has_text="engram").first
    tab.wait_for(timeout=60_000)
    tab.click()
    notes = page.locator(".jp-engram-note")
    try:
        notes.first.wait_for(timeout=60_000)
    finally:
        page.screenshot(path=str(artifacts / "07-sidebar-page.png"))
    assert notes.count() >= 20
    sidebar = page.locator("#engram-sidebar")
    assert "pending review" in sidebar.inner_text() and "indexed" in sidebar.inner_text()
    page.locator(".jp-StatusBar-Widget, .jp-engram-status").filter(has_text="engram:").first.wait_for(timeout=60_000)
    _shot(sidebar, artifacts / "07-sidebar.png")

    page.locator(".jp-engram-search").fill("Which sensors replaced the Halden CT-200?")
    page.locator(".jp-engram-search").press("Enter")
    first = page.locator(".jp-engram-result-link").first
    first.wait_for(timeout=120_000)
    _shot(sidebar, artifacts / "07-sidebar-search.png")
    target = first.inner_text()
    first.click()
    editor = page.locator(".jp-FileEditor").first
    editor.wait_for(timeout=60_000)
    page.locator(".lm-TabBar-tab.lm-mod-current", has_text=target.split("/")[-1][:20]).first.wait_for(timeout=30_000)
    page.locator(".jp-FileEditor .cm-selectionBackground").first.wait_for(state="attached", timeout=30_000)  # the span is selected
    page.screenshot(path=str(artifacts / "07-note-opened-at-span.png"))
    page.close()


def _shot(locator, path):
    locator.scroll_into_view_if_needed()
    locator.screenshot(path=str(path))

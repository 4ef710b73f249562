"""The built JupyterLab extension in chromium: the sidebar lists the vault, searches, and a click opens the note at the span."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


def test_sidebar_lists_searches_and_opens_a_note_at_the_span(lab, browser, artifacts):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{lab['url']}/lab")
    tab = page.locator(".lm-TabBar-tab", has=page.locator(".jp-engram-icon")).first
    tab.wait_for(timeout=60_000)
    tab.click()
    notes = page.locator(".jp-engram-note")
    try:
        notes.first.wait_for(state="attached", timeout=60_000)  # folders start closed
    finally:
        page.screenshot(path=str(artifacts / "07-sidebar-page.png"))
    assert notes.count() >= 20
    sidebar = page.locator("#engram-sidebar")
    assert "pending review" in sidebar.inner_text() and "indexed" in sidebar.inner_text()
    page.locator(".jp-StatusBar-Widget, .jp-engram-status").filter(has_text="engram:").first.wait_for(timeout=60_000)
    _shot(sidebar, artifacts / "07-sidebar.png")

    # A note written outside JupyterLab: the Re-index button indexes it, with progress in the status bar.
    (lab["root"] / "demo-vault" / "field-visit.md").write_text("# Field visit\n\nKofi Mensah serviced the S2 sonde.\n")
    page.locator(".jp-engram-reindex").click()
    page.locator(".jp-engram-status", has_text="indexed in").first.wait_for(timeout=120_000)
    assert "1 added" in page.locator(".jp-engram-status").first.inner_text()
    page.locator(".jp-engram-note-link[data-path='field-visit.md']").first.wait_for(state="attached", timeout=30_000)

    page.locator(".jp-engram-search").fill("Which sensors replaced the Halden CT-200?")
    page.locator(".jp-engram-search").press("Enter")
    page.locator(".jp-engram-result-link").first.wait_for(timeout=120_000)
    _shot(sidebar, artifacts / "07-sidebar-search.png")
    assert "fact filter (llm:stand-in) kept 5 of" in sidebar.inner_text() and lab["filter_requests"]  # what the model was asked
    result = page.locator(".jp-engram-result-link", has_text="sensor-review").first  # the decision note, among the top results
    target = page.locator(".jp-engram-result", has=result).first.get_attribute("title").split(" · ")[0]  # the note's path
    result.click()
    editor = page.locator(".jp-FileEditor").first
    editor.wait_for(timeout=60_000)
    page.locator(".lm-TabBar-tab.lm-mod-current", has_text=target.split("/")[-1][:20]).first.wait_for(timeout=30_000)
    page.locator(".jp-FileEditor .cm-selectionBackground").first.wait_for(state="attached", timeout=30_000)  # the span is selected
    page.screenshot(path=str(artifacts / "07-note-opened-at-span.png"))

    # "Engram: show provenance of this note" from the command palette: the note's triples, spans selected.
    page.locator(".jp-FileEditor .cm-content").first.click()
    page.keyboard.press("Control+Shift+C")
    page.keyboard.type("Engram: show provenance")
    page.keyboard.press("Enter")
    dialog = page.locator(".jp-Dialog", has=page.locator(".jp-engram-triples")).first
    dialog.wait_for(timeout=60_000)
    assert dialog.locator("tr").count() > 2 and f"triples from {target}" in dialog.inner_text()  # the note just opened
    dialog.screenshot(path=str(artifacts / "07-provenance-dialog.png"))
    dialog.locator("button", has_text="Ok").click()

    # "Engram: learn from selection": prefilled from the selected text; the review gate and duplicate check apply.
    for attempt, title in enumerate(["Halden firmware fix", "Halden firmware fix again"]):
        line = page.locator(".jp-FileEditor .cm-line", has_text="firmware fix is planned").first
        line.click(click_count=3)  # select the line
        page.keyboard.press("Control+Shift+C")
        page.keyboard.type("Engram: learn from selection")
        page.keyboard.press("Enter")
        form = page.locator(".jp-Dialog .jp-engram-learn").first
        form.wait_for(timeout=30_000)
        assert "firmware fix is planned" in form.locator("[name=body]").input_value()
        assert form.locator("[name=sources]").input_value() == "meetings/2026-03-18-sensor-review.md"
        form.locator("[name=title]").fill(title)
        # The selection alone duplicates its own note (and would be refused): a person writes the lesson.
        form.locator("[name=body]").fill("Until Halden ships its CT-200 firmware fix, keep applying the drift correction.")
        if attempt == 0:
            form.screenshot(path=str(artifacts / "07-learn-form.png"))
        page.locator(".jp-Dialog button", has_text="Write learned note").click()
        answer = page.locator(".jp-Dialog", has_text="Learned note written" if attempt == 0 else "not written").first
        answer.wait_for(timeout=60_000)
        if attempt == 1:
            assert "learned/halden-firmware-fix.md" in answer.inner_text()  # the duplicate is named
        answer.locator("button").last.click()
    assert "status: pending-review" in (lab["root"] / "demo-vault" / "learned" / "halden-firmware-fix.md").read_text()
    page.close()


def _shot(locator, path):
    locator.scroll_into_view_if_needed()
    locator.screenshot(path=str(path))

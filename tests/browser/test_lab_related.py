"""Related notes (issue 21, item 3) in chromium: the right-hand panel lists the notes related to the note in the
editor with their reasons, follows the user to another note, and opens a related note on click. The full-window
shot (sidebar, editor, related panel) is the README's."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

FIRST = "meetings/2026-03-18-sensor-review.md"


def _related(page):
    panel = page.locator("#engram-related")
    if not panel.is_visible():
        page.locator(".lm-TabBar-tab", has=page.locator(".jp-engram-related-icon")).first.click()
    panel.wait_for(timeout=60_000)
    return panel


def _heading_is(panel, text):
    panel.locator(".jp-engram-related-heading", has_text=text).wait_for(timeout=60_000)
    panel.locator(".jp-engram-related-note").first.wait_for(timeout=60_000)


def test_related_notes_follow_the_editor_and_say_why(lab, browser, artifacts):
    page = browser.new_page(viewport={"width": 1500, "height": 950})
    page.goto(f"{lab['url']}/lab/tree/demo-vault/{FIRST}")
    page.locator(".jp-FileEditor").first.wait_for(timeout=60_000)
    panel = _related(page)
    _heading_is(panel, f"Related to {FIRST}")
    titles = panel.locator(".jp-engram-related-note").all_inner_texts()
    reasons = panel.locator(".jp-engram-related-reasons li").all_inner_texts()
    assert "2026-01-14 Kickoff" in titles, titles
    assert "→ this note links to it" in reasons and "← it links to this note" in reasons, reasons
    assert any(r.startswith("shares ") for r in reasons) and any(r.startswith("similar text (cosine ") for r in reasons), reasons
    assert panel.evaluate("n => n.scrollWidth <= n.clientWidth + 1"), "the panel overflows sideways"
    panel.screenshot(path=str(artifacts / "21-related-notes.png"))

    # With the vault sidebar open on the left too: the README's picture of the lab.
    page.locator(".lm-TabBar-tab", has=page.locator(".jp-engram-icon")).first.click()
    page.locator(".jp-engram-note").first.wait_for(state="attached", timeout=60_000)
    page.locator(".jp-engram-folder-name", has_text="meetings").first.click()
    no_news = page.get_by_role("button", name="No", exact=True)  # the "official Jupyter news?" toast
    if no_news.count():
        no_news.first.click()
    page.wait_for_timeout(500)
    page.screenshot(path=str(artifacts / "21-lab-sidebar-and-related.png"))

    # A click on a related note opens it; the panel follows to that note, with a list of its own.
    panel.locator(".jp-engram-related-note", has_text="2026-01-14 Kickoff").first.click()
    page.locator(".lm-TabBar-tab.lm-mod-current", has_text="2026-01-14-kickoff").first.wait_for(timeout=60_000)
    _heading_is(panel, "Related to meetings/2026-01-14-kickoff.md")
    after = panel.locator(".jp-engram-related-note").all_inner_texts()
    assert after != titles and "2026-01-14 Kickoff" not in after, after
    panel.screenshot(path=str(artifacts / "21-related-notes-after-switch.png"))

    # Back to the first tab: the panel follows the switch of tabs too.
    page.locator(".lm-TabBar-tab", has_text="2026-03-18-sensor-review").first.click()
    _heading_is(panel, f"Related to {FIRST}")
    page.close()

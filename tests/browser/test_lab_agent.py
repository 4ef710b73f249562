"""Notebook 05 in a real JupyterLab and chromium: ``%%engram ask`` against a scripted model on 127.0.0.1 shows the
answer with a citation link and the proposal's diff; a click on approve writes the note with a checkpoint, and
a click on rewind gives the note back its exact bytes."""

from __future__ import annotations

import pytest

from engram_lab.agent.proposals import list_proposals
from engram_lab.config import trust_vault
from tests.agent.scripted_agent import EDIT_MARK, next_reply
from tests.browser.test_lab_notebook import RUN_TIMEOUT_MS, _run_all, _shot
from tests.extract.chat_server import ChatServer

pytestmark = pytest.mark.slow


def test_notebook_05_approve_then_rewind_a_proposal(lab, browser, artifacts):
    vault = lab["root"] / "demo-vault"
    with ChatServer() as model:
        model.fallback = next_reply
        config = vault / "engram.toml"
        config.write_text(config.read_text(encoding="utf-8") + f'\n[agent]\nbase_url = "{model.url}"\nmodel = "scripted"\n'
                          'max_retries = 0\n', encoding="utf-8")
        trust_vault(vault)  # the user's own endpoint, as `engram trust` would record it

        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{lab['url']}/lab/tree/05-agent-loop.ipynb")
        page.wait_for_selector(".jp-Notebook", timeout=60_000)
        _run_all(page, artifacts)

        approve = page.locator(".engram-panel button[data-action='approve']").first
        try:
            approve.wait_for(state="attached", timeout=RUN_TIMEOUT_MS)
        finally:
            page.screenshot(path=str(artifacts / "05-notebook.png"), full_page=True)
        (proposal,) = list_proposals(vault)
        note = vault / proposal.intent.path
        before = note.read_bytes()
        panel = page.locator(".engram-panel", has=page.locator("pre.diff")).first
        assert EDIT_MARK in panel.locator("pre.diff").inner_text()
        _shot(panel, artifacts / "05-agent-edits-proposed.png")

        # The answer cites the note it read, as a link carrying vault, path and span.
        link = page.locator(".engram-view a[data-engram-path]").first
        assert link.get_attribute("data-engram-vault") == str(vault) and link.get_attribute("data-engram-start")
        _shot(page.locator(".engram-view", has=page.locator("a[data-engram-path]")).first, artifacts / "05-answer.png")

        approve.scroll_into_view_if_needed()
        approve.click()
        page.locator(".engram-panel", has_text=f"approved {proposal.id}").first.wait_for(state="attached", timeout=120_000)
        assert EDIT_MARK in note.read_text(encoding="utf-8") and list_proposals(vault) == []
        _shot(page.locator(".engram-panel", has_text="approved").first, artifacts / "05-agent-edits-approved.png")

        rewind = page.locator(".engram-panel button[data-action='rewind']").first  # newest first: the approval's
        rewind.scroll_into_view_if_needed()
        rewind.click()
        page.locator(".engram-panel", has_text="rewound").first.wait_for(state="attached", timeout=120_000)
        assert note.read_bytes() == before
        _shot(page.locator(".engram-panel", has_text="rewound").first, artifacts / "05-agent-edits-rewound.png")
        page.close()

"""The heuristic extractor on small texts: every pattern it claims, with spans checked against the source."""

from __future__ import annotations

import datetime as dt

import pytest

from engram_lab.extract.heuristic.extractor import HeuristicExtractor
from engram_lab.extract.model import EntityRef
from engram_lab.extract.segment import segment_document
from engram_lab.vault import parse_document
from tests.conftest import notebook_json


def extract(text: str, path: str = "n.md", kind: str = "markdown"):
    doc = parse_document(text, path, kind)
    return HeuristicExtractor().extract(doc, segment_document(doc)), doc


def triples(extraction):
    return {(r.subject.name, r.predicate, r.object.name if isinstance(r.object, EntityRef) else r.object) for r in extraction.relations}


def kinds(extraction):
    return {e.name: e.kind for e in extraction.entities}


def assert_spans_match(extraction, doc):
    texts = {p.cell_id: p.model.text for p in doc.parts}
    for mention in extraction.entities:
        if mention.span is not None:
            written = mention.span.of(texts[mention.cell_id])
            assert written in (mention.name, mention.surface) or mention.surface == written, (written, mention)
    for relation in extraction.relations:
        if relation.span is not None:
            assert relation.span.of(texts[relation.cell_id]) == relation.label


def test_copula_gives_a_hierarchy_edge_and_a_kind():
    ex, doc = extract("# Lionel Messi\n\nLionel Messi is an Argentine footballer. He plays for Inter Miami.\n")
    assert ("Lionel Messi", "is a", "argentine footballer") in {(s, p, o.lower()) for s, p, o in triples(ex)}
    assert kinds(ex)["Lionel Messi"] == "Person"
    assert ("Lionel Messi", "plays for", "Inter Miami") in triples(ex)  # "He" resolved to the subject
    assert_spans_match(ex, doc)


def test_capital_of_and_apposition():
    ex, doc = extract("# Paris\n\nParis is the capital of France. Berlin, a city in Germany, is large.\n")
    found = triples(ex)
    assert ("Paris", "capital of", "France") in found
    assert ("Berlin", "is a", "city") in found
    assert kinds(ex)["Berlin"] == "Place"
    assert_spans_match(ex, doc)


def test_verbs_between_names_and_coordination():
    ex, _ = extract("The band was formed in Liverpool. Apple Records was founded by John Lennon and Paul McCartney in 1968.\n")
    found = triples(ex)
    assert ("Apple Records", "founded by", "John Lennon") in found
    assert ("Apple Records", "founded by", "Paul McCartney") in found
    assert ("Apple Records", "founded in", "1968") in found
    assert kinds(ex)["1968"] == "Time" and kinds(ex)["Apple Records"] == "Organization"


def test_surname_resolves_within_the_document_from_an_earlier_segment():
    text = "# Team\n\n## People\nMarta Hall runs the laboratory.\n\n## Later\nHall measured nitrate at Mill Reach.\n"
    ex, doc = extract(text)
    hall = [e for e in ex.entities if e.surface == "Hall"]
    assert hall and hall[0].name == "Marta Hall"
    assert ("Marta Hall", "measured nitrate at", "Mill Reach") in triples(ex)
    assert_spans_match(ex, doc)


def test_ambiguous_surname_stays_its_own_name():
    ex, _ = extract("Marta Hall and Simon Hall met. Hall agreed.\n")
    assert "Hall" in kinds(ex) and not any(e.surface == "Hall" for e in ex.entities)


def test_definite_reference_resolves_to_the_latest_entity_of_its_kind():
    ex, _ = extract("Halden Instruments makes sensors. The company supplied Gull Point.\n")
    assert ("Halden Instruments", "supplied", "Gull Point") in triples(ex)


def test_frontmatter_keys_aliases_tags_and_links():
    text = ("---\ntitle: Kickoff\nkind: Meeting\nattendees: [Amara Okafor, Jonas Lindqvist]\nfunder: Vessel River Authority\n"
            "budget: 3100\naliases: [KO]\ntags: [meeting]\n---\n# Kickoff\n\nSee [[Stations|the stations]].\n")
    ex, doc = extract(text)
    found = triples(ex)
    assert {("Kickoff", "attendees", "Amara Okafor"), ("Kickoff", "funder", "Vessel River Authority"),
            ("Kickoff", "budget", "3100"), ("Kickoff", "tag", "meeting"), ("Kickoff", "links to", "Stations")} <= found
    k = kinds(ex)
    assert k["Kickoff"] == "Event" and k["Amara Okafor"] == "Person" and k["Vessel River Authority"] == "Organization"
    assert any(e.name == "Kickoff" and "KO" in e.aliases for e in ex.entities)
    link = next(e for e in ex.entities if e.name == "Stations" and e.span is not None)
    assert link.span.of(text) == "[[Stations|the stations]]"


def test_table_rows_become_entities_with_column_relations():
    text = "# Sensor catalog\n\n| Model | Vendor | Price |\n|---|---|---|\n| CT-200 | Halden Instruments | 2,400 |\n"
    ex, doc = extract(text)
    found = triples(ex)
    assert {("CT-200", "Vendor", "Halden Instruments"), ("CT-200", "Price", "2,400"), ("CT-200", "listed in", "Sensor catalog")} <= found
    assert kinds(ex)["CT-200"] == "Artifact" and kinds(ex)["Halden Instruments"] == "Organization"
    cell = next(r for r in ex.relations if r.predicate == "Price")
    assert cell.span.of(text) == "2,400"


def test_dated_decisions_and_claims():
    text = ("---\ndate: 2026-03-18\n---\n# Review\n\n- 2026-03-19 Decision: replace the CT-200 with the AS-5.\n"
            "- We decided to keep the TurbiQ.\n- 2026-03-20 the AS-5 arrived.\n- no date, no decision\n")
    ex, _ = extract(text)
    got = [(s.kind, s.date) for s in ex.statements]
    assert got == [("decision", dt.date(2026, 3, 19)), ("decision", dt.date(2026, 3, 18)), ("claim", dt.date(2026, 3, 20))]
    assert {a.name for a in ex.statements[0].about} >= {"CT-200", "AS-5"}


def test_notebook_mentions_carry_their_cell():
    text = notebook_json([{"cell_type": "markdown", "id": "m1", "source": "# Notes\n\nPriya Raman visited Mill Reach."}])
    ex, doc = extract(text, "nb.ipynb", "notebook")
    assert {e.cell_id for e in ex.entities} == {"m1"}
    assert ("Priya Raman", "visited", "Mill Reach") in triples(ex)
    assert_spans_match(ex, doc)


def test_code_and_links_are_not_prose():
    ex, _ = extract("# A\n\n```\nBob Smith founded Acme Corp.\n```\n`Carol Jones` wrote it. See [Dave Brown](https://x.example).\n")
    names = set(kinds(ex))
    assert "Bob Smith" not in names and "Carol Jones" not in names and "Acme Corp" not in names


def test_deterministic():
    text = "# Paris\n\nParis is the capital of France. It hosted the 1900 Summer Olympics.\n"
    first, _ = extract(text)
    second, _ = extract(text)
    assert first == second


@pytest.mark.parametrize("text", ["", "# Only a heading\n", "no capitals here at all.", "| a |\n|---|\n"])
def test_sparse_inputs_do_not_fail(text):
    ex, _ = extract(text or " ")
    assert ex.extractor == "heuristic"


def test_ordinary_words_opening_sentences_and_headings_are_no_names():
    text = (
        "# Borrow notes\n\n"
        "## Motivation\n\n"
        "Currently, the Rust compiler rejects this. It is currently slow.\n\n"
        "Using Cargo, we build it. We keep using it with Cargo because Rust's checker is strict.\n\n"
        "It's late. Let's go. We let it be.\n\n"
        "## Paris\n\n"
        "Paris hosted the meeting. Then we met in Paris.\n"
    )
    extraction, doc = extract(text)
    names = {e.name for e in extraction.entities}
    assert {"Rust", "Cargo", "Paris"} <= names  # capitalised inside a sentence somewhere in the note: names
    assert not names & {"Currently", "Using", "Motivation", "It's", "It", "Let's", "Let", "Rust's"}
    markers, _ = extract("Additionally, the parser is slow. Furthermore, Cargo retries.\n")  # no lower-case evidence here
    assert {e.name for e in markers.entities} >= {"Cargo"} and not {e.name for e in markers.entities} & {"Additionally", "Furthermore"}
    assert_spans_match(extraction, doc)


def test_a_name_only_ever_opening_sentences_stays_a_name_without_lower_case_evidence():
    extraction, _ = extract("Marrakesh is a city. Marrakesh lies in Morocco.\n")
    assert "Marrakesh" in {e.name for e in extraction.entities}
    acronyms, _ = extract("## API\n\nAPI calls are slow; the api is old.\n")
    assert "API" in {e.name for e in acronyms.entities}


def test_markdown_links_to_notes_are_links_inline_and_by_reference():
    text = ("# Later\n\nThis replaces [the old rule](../rules/old-rule.md) and [RFC 12], not [a page](https://x.example/a.html).\n\n"
            "[RFC 12]: https://example.org/repo/blob/main/text/0012-first.md#summary\n")
    ex, doc = extract(text, path="text/later.md")
    links = {(r.object, r.label) for r in ex.relations if r.predicate == "links to"}
    assert links == {("rules/old-rule.md", "[the old rule](../rules/old-rule.md)"),
                     ("https://example.org/repo/blob/main/text/0012-first.md", "[RFC 12]: https://example.org/repo/blob/main/text/0012-first.md#summary")}
    assert_spans_match(ex, doc)
    assert not any("example" in e.name.lower() or "blob" in e.name.lower() for e in ex.entities)  # the definition line is no prose


def test_a_link_to_the_note_itself_is_no_link():
    ex, _ = extract("# Self\n\nSee [below](self.md#later).\n", path="self.md")
    assert not [r for r in ex.relations if r.predicate == "links to"]


def test_field_labels_are_no_names_but_their_values_are_read():
    text = ("- Feature Name: range_patterns\n- Start Date: 2015-05-21\n- RFC PR: #2203\n\n# Ranges\n\n"
            "Attendees: Amara Okafor, Jonas Lindqvist.\n\n**Decision**: replace the Halden CT-200.\n")
    names = set(kinds(extract(text)[0]))
    assert not names & {"Feature Name", "Name", "Start Date", "Date", "RFC PR", "Attendees", "Decision"}
    assert {"Amara Okafor", "Jonas Lindqvist"} <= names


def test_imperative_and_participle_openers_are_no_names():
    names = set(kinds(extract("# X\n\nConsider the Halden CT-200. Given that Amara Okafor left, Adding more is fine. "
                              "E.g. Lindqvist agreed. Let Raman decide.\n")[0]))
    assert not names & {"Consider", "Given", "Adding", "E.g", "Let"}
    assert {"Halden CT-200", "Amara Okafor", "Lindqvist", "Raman"} <= names


def test_title_cased_heading_words_are_labels_unless_the_note_names_them():
    text = ("# Range patterns\n\n## How We Teach This\n\nWe teach this in the book.\n\n## Future Possibilities\n\n"
            "Two possibilities for the future remain: ask Halden Instruments.\n\n## Halden Instruments Review\n\nDone.\n")
    names = set(kinds(extract(text)[0]))
    assert not names & {"Teach This", "Future Possibilities", "How We Teach This"}
    assert "Halden Instruments" in names

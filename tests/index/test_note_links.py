from pathlib import PurePosixPath

import pytest

from engram_lab.index.note_links import NoteLinkResolver, note_link_resolver, stem_and_base

PATHS = ["README.md", "text/0012-first.md", "text/0040-later.md", "people/Amara Okafor.md"]
TITLES = ["Read me", "First rule", None, "Amara Okafor"]


def resolver() -> NoteLinkResolver:
    return NoteLinkResolver(TITLES, PATHS)


def test_wikilink_names_resolve_by_title_stem_or_path():
    resolve = resolver()
    assert resolve("First rule") == 1 and resolve("0040-later") == 2 and resolve("text/0040-later") == 2
    assert resolve("amara okafor") == 3 and resolve("Nobody") is None and resolve("") is None


def test_markdown_paths_resolve_exactly():
    assert resolver()("people/Amara Okafor.md") == 3


def test_web_copies_resolve_by_the_vault_path_they_end_with():
    resolve = resolver()
    assert resolve("https://example.org/org/repo/blob/main/text/0012-first.md") == 1
    assert resolve("https://example.org/x/people/Amara%20Okafor.md") == 3
    assert resolve("https://example.org/other/README.md") is None  # a root note's bare name matches every project
    assert resolve("https://example.org/blob/main/0012-first.md") is None  # the folder must match too
    assert resolve("ftp://example.org/text/0012-first.md") is None


def test_markdown_and_web_copy_links_become_link_edges_of_the_walk(tmp_path):
    from engram_lab.engine import Engine
    from engram_lab.index.retrieval_index import load, published_retrieval_index

    vault = tmp_path / "vault"
    (vault / "text").mkdir(parents=True)
    (vault / "text" / "0012-first.md").write_text("# First rule\n\nThe first rule on ranges.\n")
    (vault / "text" / "0040-later.md").write_text(
        "# Later rule\n\nIt amends [RFC 12] and keeps [the index](../README.md).\n\n"
        "[RFC 12]: https://example.org/org/repo/blob/main/text/0012-first.md\n")
    (vault / "README.md").write_text("# Read me\n\nRules live in text/.\n")
    Engine(vault).index(progress=False)
    data = load(published_retrieval_index(vault))
    paths = data.documents["path"].to_list()
    links = data.edges.filter(data.edges["type"] == "link")
    pairs = {(paths[s], paths[d]) for s, d in zip(links["src"].to_list(), links["dst"].to_list())}
    assert {("text/0040-later.md", "text/0012-first.md"), ("text/0040-later.md", "README.md")} <= pairs


@pytest.mark.parametrize("path", ["note.md", "a/b/note.md", "a/archive.tar.gz", "a/.hidden", ".env", "a/file.", "a/no_suffix",
                                  "dots.in.name/x.md", "a/b..md", "ünï/çödé.ipynb", "a/.md", "x"])
def test_stem_and_base_equal_pathlib(path):
    assert stem_and_base(path) == (PurePosixPath(path).stem, str(PurePosixPath(path).with_suffix("")))


def test_a_resolver_is_reused_while_the_notes_stand_and_answers_as_a_fresh_one():
    targets = ["First rule", "0040-later", "people/Amara Okafor.md", "Nobody", "Read me", "First rule"]
    kept = note_link_resolver(list(TITLES), list(PATHS))
    assert [kept(t) for t in targets] == [resolver()(t) for t in targets]
    assert note_link_resolver(list(TITLES), list(PATHS)) is kept  # equal lists, new objects: the same resolver
    retitled = ["Read me", "Second rule", None, "Amara Okafor"]
    moved = note_link_resolver(retitled, list(PATHS))
    assert moved is not kept and moved("Second rule") == 1 and moved("First rule") is None
    renamed = note_link_resolver(retitled, ["README.md", "text/0013-first.md", "text/0040-later.md", "people/Amara Okafor.md"])
    assert renamed("text/0012-first.md") is None and renamed("text/0013-first.md") == 1

"""Writes the demo notebooks (outputs empty). Run after editing a cell here: python notebooks/build_notebooks.py"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).parent
SETUP = '''import os
from pathlib import Path
from engram_lab.sample import copy_sample_vault

# The vault: $ENGRAM_DEMO_VAULT, else ./demo-vault next to this notebook (a copy of the bundled sample).
VAULT = Path(os.environ.get("ENGRAM_DEMO_VAULT", "demo-vault")).resolve()
if not VAULT.exists():
    copy_sample_vault(VAULT)
%load_ext engram_lab
%engram open {VAULT}'''

NOTEBOOKS = {
    "01-quickstart.ipynb": [
        new_markdown_cell("# engram-lab quickstart\n\nA folder of Markdown notes is the **vault**. engram-lab derives an "
                          "ontology from it (entities, relations, dated decisions), one named graph per note, and "
                          "searches it with Personalized PageRank. Everything here runs offline."),
        new_code_cell(SETUP),
        new_markdown_cell("Index the vault. Only notes that changed are read again; the bar updates in place."),
        new_code_cell("%engram index"),
        new_code_cell("%engram status"),
        new_markdown_cell("## Search\n\nResults name the note, the heading path and the character span they came from."),
        new_code_cell('%engram search "Which sensors replaced the Halden CT-200, and why?" --k 5'),
        new_markdown_cell("The context an agent receives for the same question: passages plus relation evidence, each line with its provenance."),
        new_code_cell('%engram context "Which sensors replaced the Halden CT-200, and why?" --k 3'),
        new_markdown_cell("## Provenance of the top result\n\nThe span highlighted in its note, the named graph, the triples "
                          "extracted from it, who wrote it and which extractor produced them."),
        new_code_cell('%engram provenance "Which sensors replaced the Halden CT-200, and why?"'),
        new_markdown_cell("## How activation spread\n\nSeeds (red rings), the nodes PageRank reached, edge types, and the winning passages (green)."),
        new_code_cell('%engram activation "Which sensors replaced the Halden CT-200, and why?" --limit 120'),
        new_code_cell("%engram show AquaSense"),
        new_markdown_cell("## Review\n\nWhat the machine proposes (entity pairs, replaced decisions, learned notes) waits for a "
                          "person. A click writes the judgment to the ledger; *undo* retracts it."),
        new_code_cell("%engram review"),
    ],
    "02-provenance.ipynb": [
        new_markdown_cell("# Provenance: from an answer to its span, and back\n\nTrace an answer to the sentence it came "
                          "from, fix that sentence, re-index, and watch the triple change."),
        new_code_cell(SETUP + "\n%engram index"),
        new_code_cell('''from engram_lab.engine import Engine
engine = Engine(VAULT)
top = engine.query("Who makes the AS-5 sensor?", k=3, mode="keyword").results[0]
text = (VAULT / top.path).read_text(encoding="utf-8")
print(top.provenance())
print(text[top.span[0]:top.span[1]])'''),
        new_code_cell('''TRIPLES = """SELECT ?s ?p ?o WHERE { GRAPH ?g { ?st a <http://www.w3.org/1999/02/22-rdf-syntax-ns#Statement> ;
  <http://www.w3.org/1999/02/22-rdf-syntax-ns#subject> ?sn ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#predicate> ?pn ;
  <http://www.w3.org/1999/02/22-rdf-syntax-ns#object> ?o . ?sn <http://www.w3.org/2000/01/rdf-schema#label> ?s .
  ?pn <http://www.w3.org/2000/01/rdf-schema#label> ?p . FILTER(CONTAINS(STR(?o), "AquaSense") || CONTAINS(?s, "AS-5")) } }"""
before = engine.sparql(TRIPLES)
before'''),
        new_markdown_cell("Now correct the source note: suppose the vendor's name was written wrongly. The note is the "
                          "authority, so we edit the note, not the graph."),
        new_code_cell('''note = VAULT / "orgs" / "aquasense.md"
original = note.read_text(encoding="utf-8")
note.write_text(original.replace("AquaSense", "AquaSense Marine"), encoding="utf-8")
%engram index
after = engine.sparql(TRIPLES)
after'''),
        new_code_cell('''changed = set(map(tuple, after.rows())) ^ set(map(tuple, before.rows()))
print(f"{len(changed)} triples differ; the note's graph was replaced whole, so no stale triple is left")
note.write_text(original, encoding="utf-8")  # put the note back
%engram index'''),
    ],
    "03-resolution-and-revision.ipynb": [
        new_markdown_cell("# Resolution and revision\n\nMerge two names for one thing, split a wrong merge with "
                          "`distinct`, and let a later decision supersede an earlier one. Judgments are an overlay: the "
                          "notes' graphs never change, and every judgment can be retracted."),
        new_code_cell(SETUP + "\n%engram index"),
        new_code_cell("%engram review"),
        new_markdown_cell("## Merge\n\n`Lindqvist` alone is a surname: it stays local to its note unless a person says otherwise."),
        new_code_cell('%engram judge Lindqvist "Jonas Lindqvist" same'),
        new_code_cell("%engram show Jonas Lindqvist"),
        new_markdown_cell("## Split\n\nThe automatic pass merged `AquaSense` and `AquaSense Ltd`. Suppose they are two companies:"),
        new_code_cell('''from engram_lab.engine import Engine
from engram_lab.resolve.service import resolution_state
engine = Engine(VAULT)
decision = engine.judge("AquaSense", "AquaSense Ltd", "distinct")
state = resolution_state(VAULT)
print("merged:", state.same(decision.subject, decision.object), "| decision:", decision.decision_id)'''),
        new_code_cell('''engine.retract(decision.decision_id)  # undo: the automatic merge holds again
print("merged:", resolution_state(VAULT).same(decision.subject, decision.object))'''),
        new_markdown_cell("## Supersede a decision\n\nThe analysis pass proposes which later decision replaces which earlier one; a person accepts or rejects."),
        new_code_cell('''candidates = engine.supersessions()
for c in candidates:
    print(c.evidence["status"], "|", c.evidence["earlier"]["text"][:70], "->", c.evidence["later"]["date"])'''),
        new_code_cell('''from engram_lab.resolve.service import candidate_id
sensor = next(c for c in candidates if "CT-200" in c.evidence["earlier"]["text"])
verdict = engine.supersession_verdict(candidate_id(sensor), "accept")
%engram search "Which sensors were deployed at the kickoff?" --k 5 --mode keyword'''),
        new_code_cell("engine.retract(verdict.decision_id)  # leave the vault as it was"),
    ],
    "04-evaluation.ipynb": [
        new_markdown_cell("# Evaluation on MuSiQue\n\nRuns the shipped search code in every mode on the MuSiQue dev "
                          "set, when it is present (`$ENGRAM_MUSIQUE_DIR`, else `../../shared/data/musique-dev`). "
                          "Indexing 1,890 passages with embeddings takes a few minutes on two cores."),
        new_code_cell('''import json, os
from pathlib import Path
from IPython.display import SVG, display
import polars as pl

DATA = Path(os.environ.get("ENGRAM_MUSIQUE_DIR", "../../shared/data/musique-dev"))
MODES = tuple(os.environ.get("ENGRAM_EVAL_MODES", "full,keyword,dense,graph-off,hipporag2").split(","))
present = (DATA / "questions.json").exists() and (DATA / "corpus.json").exists()
print(f"MuSiQue data at {DATA}: {'found' if present else 'not found; set ENGRAM_MUSIQUE_DIR to run the evaluation'}")'''),
        new_code_cell('''if present:
    from engram_lab.eval.harness import run_musique
    out = Path("eval-out")
    report = run_musique(DATA / "questions.json", DATA / "corpus.json", out, MODES)
    overall = pl.DataFrame([{"mode": m, **v} for m, v in report["overall"].items()])
    display(overall)'''),
        new_markdown_cell("Recall by hop type and mode (ALL@10: every supporting passage in the top 10)."),
        new_code_cell('''if present:
    by_hop = pl.DataFrame([{"hop": hop, "mode": m, **v} for hop, modes in report["by_hop"].items() for m, v in modes.items()])
    display(by_hop.pivot(on="mode", index="hop", values="R@5"))
    display(SVG(filename=str(out / "all_at_10_by_hop.svg")))'''),
    ],
    "05-agent-loop.ipynb": [
        new_markdown_cell("# The vault as an agent's memory\n\n`%%engram ask` runs one agent turn: the model searches, reads "
                          "and proposes edits through the vault's tools, with the quick `auto` context and your procedural "
                          "memory given to it as data. In `ask` mode (the default) an edit waits for you as a diff; an "
                          "approved one is a checkpoint you can rewind."),
        new_code_cell(SETUP + "\n%engram index"),
        new_markdown_cell("The model: any OpenAI-compatible endpoint with tool calling (vLLM, llama.cpp, Ollama, OpenAI), "
                          "named under `[agent]` in the vault's `engram.toml`. `$ENGRAM_AGENT_BASE_URL` and "
                          "`$ENGRAM_AGENT_MODEL` choose it here (the tests point them at a scripted stand-in on 127.0.0.1). "
                          "The endpoint counts only once you trust the vault: this cell does so only for an `[agent]` it "
                          "wrote itself into a vault that named no other endpoint."),
        new_code_cell('''from engram_lab.config import read_config, trust_vault

config = VAULT / "engram.toml"
text = config.read_text(encoding="utf-8") if config.exists() else ""
if "[agent]" not in text:
    if read_config(VAULT).endpoints():
        print("This vault names other endpoints: add [agent] yourself (README) and run engram trust", VAULT)
    else:
        base_url = os.environ.get("ENGRAM_AGENT_BASE_URL", "http://127.0.0.1:11434/v1")
        model = os.environ.get("ENGRAM_AGENT_MODEL", "qwen2.5:7b-instruct")
        config.write_text(text + f'\\n[agent]\\nbase_url = "{base_url}"\\nmodel = "{model}"\\npermission = "ask"\\n', encoding="utf-8")
        trust_vault(VAULT)
print(config.read_text(encoding="utf-8"))'''),
        new_markdown_cell("## Ask\n\nThe answer cites passages as `vault:PATH#START-END` links that open the note at the span "
                          "(a citation of a note the turn never read is flagged). Below it, the *Agent edits* panel: "
                          "the proposed diff with **approve** / **reject**, and, once approved, the checkpoint with **rewind**."),
        new_code_cell("%%engram ask\nWhich sensors replaced the Halden CT-200, and why?"),
        new_markdown_cell("Nothing touched the note: the edit is a pending proposal (also listed by `engram proposals VAULT`)."),
        new_code_cell('''from engram_lab.agent.proposals import list_proposals

for proposal in list_proposals(VAULT):
    print(proposal.id, proposal.intent.kind, proposal.intent.path, "by", proposal.actor, "-", proposal.intent.why)
    print(proposal.diff)'''),
        new_markdown_cell("## Read-only\n\nThe permission mode is enforced by the tools, not by the prompt: in `read-only` the "
                          "model is offered no write tool, and a write it calls anyway is refused (expand the tool calls)."),
        new_code_cell("%%engram ask --permission read-only\nWhich sensors replaced the Halden CT-200, and why?"),
    ],
}


def main() -> None:
    for name, cells in NOTEBOOKS.items():
        nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                                                  "language_info": {"name": "python"}})
        nbformat.write(nb, HERE / name)


if __name__ == "__main__":
    main()

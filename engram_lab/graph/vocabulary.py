"""Every IRI the engine mints or uses is spelled here and nowhere else.

Standard terms come from PROV-O (derivation, activities), PAV (authorship), RDF
(statement reification), RDFS and SKOS (labels, hierarchy); everything else is
in the ``engram:`` namespace below.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache
from urllib.parse import quote

from pyoxigraph import NamedNode

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
PROV = "http://www.w3.org/ns/prov#"
PAV = "http://purl.org/pav/"
SKOS = "http://www.w3.org/2004/02/skos/core#"
ENGRAM = "urn:engram:ns:"

DOCUMENT_PREFIX = "urn:engram:doc:"
ENTITY_PREFIX = "urn:engram:entity:"
STATEMENT_PREFIX = "urn:engram:stmt:"
MENTION_PREFIX = "urn:engram:mention:"
RELATION_PREFIX = "urn:engram:rel:"
KIND_PREFIX = "urn:engram:kind:"
DECISION_KEY_PREFIX = "urn:engram:decision:"
JUDGMENT_PREFIX = "urn:engram:judgment:"
SUPERSESSION_PREFIX = "urn:engram:supersession:"
OVERLAY_GRAPH = "urn:engram:overlay:resolution"  # every resolution judgment in force, rebuilt from the ledger
OWL = "http://www.w3.org/2002/07/owl#"


def _n(iri: str) -> NamedNode:
    return NamedNode(iri)


# Standard terms
RDF_TYPE = _n(RDF + "type")
RDF_SUBJECT = _n(RDF + "subject")
RDF_PREDICATE = _n(RDF + "predicate")
RDF_OBJECT = _n(RDF + "object")
RDF_STATEMENT = _n(RDF + "Statement")
RDFS_LABEL = _n(RDFS + "label")
SKOS_ALT_LABEL = _n(SKOS + "altLabel")
SKOS_BROADER = _n(SKOS + "broader")
SKOS_NARROWER = _n(SKOS + "narrower")
SKOS_RELATED = _n(SKOS + "related")
PROV_WAS_DERIVED_FROM = _n(PROV + "wasDerivedFrom")
PROV_WAS_GENERATED_BY = _n(PROV + "wasGeneratedBy")
PROV_ACTIVITY = _n(PROV + "Activity")
PROV_ENDED_AT = _n(PROV + "endedAtTime")
PROV_GENERATED_AT = _n(PROV + "generatedAtTime")
PROV_WAS_ATTRIBUTED_TO = _n(PROV + "wasAttributedTo")
OWL_SAME_AS = _n(OWL + "sameAs")
PAV_AUTHORED_BY = _n(PAV + "authoredBy")
XSD_INTEGER = _n(XSD + "integer")
XSD_DATE = _n(XSD + "date")
XSD_DATETIME = _n(XSD + "dateTime")

# engram: classes
DOCUMENT = _n(ENGRAM + "Document")
ENTITY = _n(ENGRAM + "Entity")
MENTION = _n(ENGRAM + "Mention")
DECISION = _n(ENGRAM + "Decision")
CLAIM = _n(ENGRAM + "Claim")

# engram: properties
PATH = _n(ENGRAM + "path")
TITLE = _n(ENGRAM + "title")
KIND = _n(ENGRAM + "kind")
LABEL = _n(ENGRAM + "surfaceLabel")  # the words as written in the note
SPAN_START = _n(ENGRAM + "spanStart")
SPAN_END = _n(ENGRAM + "spanEnd")
CELL = _n(ENGRAM + "cell")
SEGMENT = _n(ENGRAM + "segment")
MENTION_OF = _n(ENGRAM + "mentionOf")
ABOUT = _n(ENGRAM + "about")
TEXT = _n(ENGRAM + "text")
DATE = _n(ENGRAM + "date")
EXTRACTOR = _n(ENGRAM + "extractor")
EXTRACTOR_VERSION = _n(ENGRAM + "extractorVersion")
MODEL = _n(ENGRAM + "model")
LINKS_TO = _n(ENGRAM + "linksTo")
WARNING = _n(ENGRAM + "warning")  # on a document: what the per-note caps cut from its graph
IS_A = _n(ENGRAM + "isA")  # "X is a Y", "X, a Y": a hierarchy edge from instance to class
HAS_TAG = _n(ENGRAM + "tag")
# resolution overlay and supersession analysis
JUDGMENT = _n(ENGRAM + "Judgment")
SUPERSESSION = _n(ENGRAM + "SupersessionCandidate")
VERDICT = _n(ENGRAM + "verdict")
JUDGED_SUBJECT = _n(ENGRAM + "judgedSubject")
JUDGED_OBJECT = _n(ENGRAM + "judgedObject")
DISTINCT_FROM = _n(ENGRAM + "distinctFrom")
EVIDENCE = _n(ENGRAM + "evidence")  # a JSON literal: the features the judgment was made on
DECISION_ID = _n(ENGRAM + "decisionId")
BLOCKED_BY = _n(ENGRAM + "blockedBy")
EARLIER = _n(ENGRAM + "earlier")
LATER = _n(ENGRAM + "later")
EARLIER_KEY = _n(ENGRAM + "earlierKey")
LATER_KEY = _n(ENGRAM + "laterKey")
SHARED_SUBJECT = _n(ENGRAM + "sharedSubject")
STATUS = _n(ENGRAM + "status")


def _digest(*parts: str, length: int = 20) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:length]


@lru_cache(maxsize=1 << 18)  # pure, called for every mention, relation end, label and lookup: names repeat (at 1 << 16 the
# lexical matcher of a 10,000-note vault, 197,000 labels, cycled through the cache and missed every time)
def normalise_label(text: str) -> str:
    """Case-, accent-width- and punctuation-insensitive form of a name: 'Dr. A. Okafor' -> 'dr-a-okafor'."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\W_]+", "-", folded).strip("-")


def document_iri(doc_id: str) -> str:
    """The stable IRI of a document (and the name of its assertion graph)."""
    return f"{DOCUMENT_PREFIX}{doc_id}"


def analysis_graph_iri(doc_id: str) -> str:
    """Machine analysis of a document lives beside, never inside, its assertion graph."""
    return f"{document_iri(doc_id)}#analysis"


def is_assertion_graph(graph: str) -> bool:
    """A document's own graph (what its text states), as opposed to ``#analysis`` and the overlay."""
    return graph.startswith(DOCUMENT_PREFIX) and "#" not in graph


def activity_iri(doc_id: str) -> str:
    return f"{document_iri(doc_id)}#extraction"


@lru_cache(maxsize=1 << 16)
def entity_iri(name: str, kind: str) -> str:
    """Derived from the normalised surface form and the kind: the same name and kind, the same IRI."""
    norm = normalise_label(name) or _digest(name, length=12)
    return f"{ENTITY_PREFIX}{kind.lower()}:{quote(norm, safe='-')}"


@lru_cache(maxsize=1 << 12)
def relation_iri(predicate: str) -> str:
    norm = normalise_label(predicate).replace("-", "_") or "related_to"
    return f"{RELATION_PREFIX}{quote(norm, safe='_')}"


def usage_iri(key: str) -> str:
    """Per-extraction LLM usage figures (calls, cached, prompt_tokens, completion_tokens, seconds)."""
    return f"{ENGRAM}usage/{key}"


def kind_iri(kind: str) -> str:
    return f"{KIND_PREFIX}{kind}"


def statement_iri(doc_id: str, subject: str, predicate: str, obj: str, span: tuple[int, int] | None, cell: str | None) -> str:
    """Stable across re-extraction of unchanged text: a hash of document, triple and span."""
    return f"{STATEMENT_PREFIX}{_digest(doc_id, subject, predicate, obj, repr(span), cell or '')}"


def decision_key(doc_id: str, text: str, date: str) -> str:
    """A decision's identity for verdicts: its note, words and date, not its span, so an edit above it keeps it."""
    return f"{DECISION_KEY_PREFIX}{_digest(doc_id, text.strip(), date)}"


def judgment_iri(decision_id: str) -> str:
    return f"{JUDGMENT_PREFIX}{decision_id}"


def supersession_iri(earlier_key: str, later_key: str) -> str:
    return f"{SUPERSESSION_PREFIX}{_digest(earlier_key, later_key)}"


def mention_iri(doc_id: str, entity: str, span: tuple[int, int] | None, cell: str | None, ordinal: int) -> str:
    return f"{MENTION_PREFIX}{_digest(doc_id, entity, repr(span), cell or '', str(ordinal))}"

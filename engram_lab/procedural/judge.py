"""Is a text a way of working (procedural memory) or a fact about the world (a note, through ``learn``)?

An offline rule-based judge, so the separation holds without a model. It scores two sets of cues on the
text after :func:`plain_text` (look-alike letters and hidden characters cannot dodge a cue):

- a way of working: a first-person preference or project ("I prefer", "we're working on", "call me"),
  a sentence that opens with an imperative verb ("Use", "Keep", "Never"), standing-rule words
  ("always", "by default", "from now on"), words about the assistant's own output ("answers", "summaries");
- a fact: a third-person subject (a name, "the …", a pronoun) with a state or event verb, and numbers.

Accuracy on a labelled set is measured by ``engram eval contamination`` (BENCHMARKS.md).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_HIDDEN = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad"), None)
# Cyrillic and Greek letters that look like Latin ones (NFKC leaves them alone).
_LOOKALIKE = str.maketrans("аеорсхуіјѕԁӏАВЕКМНОРСТХІЈЅαορτνεΑΒΕΗΙΚΜΝΟΡΤΧΥΖ",
                           "aeopcxyijsdlABEKMHOPCTXIJSaoptveABEHIKMNOPTXYZ")

_IMPERATIVES = frozenset("""use write keep avoid cite answer reply format show ask check run put name summarise summarize
respond include mention start end add list sort prefer don't dont do never always default spell quote link explain
translate give tell remind treat skip store save tag label open approve switch read stop make let follow be note
""".split())
_PREFERENCE = re.compile(r"\b(i|we)(\s+(really|also|would|'d|do|don't|do not|usually|always))*\s+(prefer|like|want|"
                         r"rather|dislike|hate|love|need you|expect|ask you)\b|\bmy (preference|style)\b|\bplease\b|"
                         r"\bcall me\b|\b(i|we)('m|'re| am| are) (currently |now |still )?(working on|focusing on|focused on|"
                         r"writing|preparing|drafting|building|migrating)\b|\b(my|our) (current|ongoing|main) "
                         r"(project|focus|work)\b")
_STANDING = re.compile(r"\b(always|never|by default|from now on|in future|whenever|each time|every time|"
                       r"should|instead)\b")
_ADDRESSED = re.compile(r"\b(you|your|answers?|repl(y|ies)|summar(y|ies)|responses?|drafts?|new notes?|headings?|"
                        r"file names?|code samples?)\b")
_CLAUSE_OPENERS = frozenset("when whenever if by from for in on after before once unless while".split())
_FIRST_PERSON = re.compile(r"\b(i|me|my|we|us|our)\b")
_THIRD_SUBJECT = re.compile(r"^(the|a|an|it|they|he|she|this|that|these|those|station|version)\b")
_STATE_VERB = re.compile(r"\b(is|are|was|were|has|have|had|will be|been|replaced|founded|started|stopped|ended|"
                         r"moved|wrote|leads|led|meets|holds|stores|weighs|peaked|falls|fell|rose|adds|exports|"
                         r"stabilised|decommissioned|measured|located|handled|calibrates|\w+ed by)\b")


def plain_text(text: str) -> str:
    """``text`` as a reader sees it: NFKC, hidden characters dropped, look-alike letters folded to Latin."""
    return unicodedata.normalize("NFKC", text).translate(_HIDDEN).translate(_LOOKALIKE)


@dataclass(frozen=True)
class Judgement:
    kind: str  # "practice" (a way of working) or "fact" (about the world)
    practice: float
    fact: float
    reason: str

    @property
    def is_fact(self) -> bool:
        return self.kind == "fact"

    @property
    def is_strong_preference(self) -> bool:
        """Clearly a way of working (a learn to redirect): more than one cue, and no fact cue outweighs them."""
        return self.kind == "practice" and self.practice >= 3


def judge(text: str) -> Judgement:
    """Classify ``text``; ties go to "practice" (refusing a person's preference costs more than a pending entry)."""
    plain = plain_text(text).strip()
    lower = plain.lower()
    words = re.findall(r"[a-z']+", lower)
    first = words[0] if words else ""
    if first in _CLAUSE_OPENERS and "," in lower:  # "When you …, put …": the main clause is after the comma
        first = (re.findall(r"[a-z']+", lower.split(",", 1)[1]) or [""])[0]
    practice = fact = 0.0
    reasons: list[str] = []
    if _PREFERENCE.search(lower):
        practice += 3
        reasons.append("a first-person preference or project")
    if first in _IMPERATIVES:
        practice += 2
        reasons.append(f"opens with the imperative {first!r}")
    if _STANDING.search(lower):
        practice += 1
    if _ADDRESSED.search(lower):
        practice += 1
    opener = words[0] if words else ""
    proper_start = (bool(re.match(r"[A-Z][\w-]*", plain)) and first not in _IMPERATIVES and opener not in _CLAUSE_OPENERS
                    and not _FIRST_PERSON.match(lower))
    # A capitalised first word is a subject only when a verb follows ("Jonas manages …"), else an imperative.
    subject_verb = bool(re.match(r"[\w'-]+( [A-Z][\w'-]*)* \w+(s|ed)\b", plain))
    if _THIRD_SUBJECT.match(lower) or (proper_start and (subject_verb or _STATE_VERB.search(lower))):
        fact += 1.5
    if _STATE_VERB.search(lower):
        fact += 1.5
        if not _FIRST_PERSON.search(lower) and not re.search(r"\byou(r)?\b", lower):
            fact += 1
            reasons.append("a third-person statement")
    if re.search(r"\d", lower):
        fact += 0.5
    kind = "fact" if fact > practice else "practice"
    reason = "; ".join(reasons) or ("states something about the world" if kind == "fact" else "no fact cue")
    return Judgement(kind, practice, fact, reason)

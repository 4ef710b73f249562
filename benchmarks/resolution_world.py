"""A synthetic world with known identities, for the resolution benchmark.

People, organisations and places, each written in several surface forms
(honorifics, initials, acronyms, legal suffixes, one-letter typos), plus the
traps: people sharing a surname, near-identical first names that belong to
different people ("Marta" / "Martha"), organisations sharing an acronym, and
places named like a person's surname. ``surfaces`` maps every loose surface
form to the set of true identities it can denote.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from engram_lab.resolve import names as nm

FIRST = ("Amara Jonas Priya Marta Martha Simon Lena Tomas Ingrid Kofi Yuki Sara Omar Carl Carla Jon John Daniel Danielle "
         "Anika Bruno Chiara Dmitri Elif Farid Greta Hugo Ines Jamal Katrin Luis Mei Nadia Oskar Paula Rafael Sofia "
         "Theo Ursula Viktor").split()
LAST = ("Okafor Lindqvist Raman Hallberg Bergstrom Novak Mensah Tanaka Costa Haddad Ferreira Kowalski Nakamura Osei "
        "Petrov Quintero Rasmussen Silva Takahashi Umarov Valdez Wojcik Yilmaz Zhang Abara Brennan Castillo Delacroix "
        "Eriksen Fontaine Gallagher Hoffmann Ivanova Jensen Kaplan Lombardi Moreau Nilsson Oyelaran Pereira").split()
ORG_HEAD = "Northern Southern Eastern Western Coastal Central Royal National Federal Atlantic Baltic Nordic Pacific Alpine".split()
ORG_MIDDLE = "Estuary River Marine Ocean Climate Sensor Water Harbour Fisheries Energy Data Survey Tidal Delta".split()
ORG_TAIL = "Research Institute|Authority|Agency|Laboratory|Council|Foundation|Trust|Society".split("|")
COMPANY = "Halden Aquasense Vantor Brightwell Meridian Solvik Tessaro Norvane Kestrel Larkspur Ostwind Quayle".split()
PLACE_FIRST = "Port Lake Mount Cape Fort Saint".split()
PLACE_NAMES = "Varna Halden Osric Belmar Tove Rennick Ashby Corran Delling Elstow Farrow Galen Hurst Ilkley".split()


@dataclass
class Entity:
    ident: str
    kind: str
    canonical: str
    variants: dict[str, str] = field(default_factory=dict)  # variant type -> surface


def _typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 1)
    options = [c for c in "aeiourstnl" if c != word[i]]
    return word[:i] + rng.choice(options) + word[i + 1 :]


def _typo_name(name: str, rng: random.Random) -> str | None:
    words = name.split()
    long_words = [i for i, w in enumerate(words) if len(w) >= 6 and w.isalpha()]
    if not long_words:
        return None
    i = rng.choice(long_words)
    words[i] = _typo(words[i], rng)
    return " ".join(words)


def build_world(rng: random.Random, people: int = 240, orgs: int = 60, places: int = 40) -> list[Entity]:
    world: list[Entity] = []
    pairs = rng.sample([(f, s) for f in FIRST for s in LAST], people)
    for n, (first, last) in enumerate(pairs):
        e = Entity(f"p{n}", "Person", f"{first} {last}")
        e.variants["honorific"] = f"Dr. {first} {last}"
        e.variants["initials"] = f"{first[0]}. {last}"
        if (typo := _typo_name(e.canonical, rng)) is not None:
            e.variants["typo"] = typo
        world.append(e)
    seen: set[str] = set()
    while len([e for e in world if e.kind == "Organization"]) < orgs:
        if rng.random() < 0.7:
            name = f"{rng.choice(ORG_HEAD)} {rng.choice(ORG_MIDDLE)} {rng.choice(ORG_TAIL)}"
        else:
            name = f"{rng.choice(COMPANY)} {rng.choice(ORG_MIDDLE)}"
        if name in seen:
            continue
        seen.add(name)
        e = Entity(f"o{len(seen)}", "Organization", name)
        if (acronym := nm.acronym_of(name)) is not None and len(acronym) >= 3:
            e.variants["acronym"] = acronym.upper()
        if name.split()[0] in COMPANY:
            e.variants["suffix"] = f"{name} {rng.choice(['Ltd', 'Inc', 'GmbH'])}"
        if (typo := _typo_name(name, rng)) is not None:
            e.variants["typo"] = typo
        world.append(e)
    place_names = rng.sample([f"{a} {b}" for a in PLACE_FIRST for b in PLACE_NAMES], places)
    for n, name in enumerate(place_names):
        e = Entity(f"l{n}", "Place", name)
        if (typo := _typo_name(name, rng)) is not None:
            e.variants["typo"] = typo
        world.append(e)
    return world


def surfaces(world: list[Entity]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for e in world:
        for surface in (e.canonical, *e.variants.values()):
            out.setdefault(nm.loose(surface), set()).add(e.ident)
    return out


def mention(e: Entity, rng: random.Random, variant_share: float = 0.35) -> tuple[str, str]:
    """A surface for ``e`` and its variant type ("canonical" most of the time)."""
    if e.variants and rng.random() < variant_share:
        kind = rng.choice(sorted(e.variants))
        return e.variants[kind], kind
    return e.canonical, "canonical"


TEMPLATES = (
    "{p} met {q} at the {o} in {l}.",
    "{p} works for the {o}.",
    "The {o} opened an office in {l}.",
    "{p} visited {l} with {q}.",
    "{q} wrote the report for the {o}.",
)


def note(i: int, world: list[Entity], rng: random.Random) -> tuple[str, list[tuple[str, str]]]:
    """A note of four sentences; returns its text and the (surface, variant type) pairs written."""
    people = [e for e in world if e.kind == "Person"]
    orgs = [e for e in world if e.kind == "Organization"]
    places = [e for e in world if e.kind == "Place"]
    written: list[tuple[str, str]] = []
    sentences = []
    for template in rng.sample(TEMPLATES, 4):
        p, q = rng.sample(people, 2)
        picks = {"p": mention(p, rng), "q": mention(q, rng), "o": mention(rng.choice(orgs), rng), "l": mention(rng.choice(places), rng)}
        used = {k: v for k, v in picks.items() if "{" + k + "}" in template}
        written += list(used.values())
        sentences.append(template.format(**{k: v[0] for k, v in picks.items()}))
    return f"# Field note {i:04d}\n\n" + " ".join(sentences) + "\n", written

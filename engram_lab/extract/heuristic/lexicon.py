"""Small word lists that steer the heuristic extractor. Plain data, kept apart so it can grow."""

from __future__ import annotations

TITLES = frozenset(
    "dr dr. mr mr. mrs mrs. ms ms. prof prof. professor sir lord lady king queen prince princess president general "
    "captain saint st. pope senator governor judge rev. reverend".split()
)
ORG_WORDS = frozenset(
    "institute university college school academy authority agency company corporation corp corp. inc inc. ltd ltd. llc "
    "gmbh plc group association society council committee party club foundation bank records studios studio entertainment "
    "airlines airways press church army navy league federation union ministry department commission network band "
    "orchestra team fc institution laboratory lab labs centre center trust organisation organization publishers "
    "instruments systems technologies industries holdings partners".split()
)
PLACE_WORDS = frozenset(
    "river lake mountain mountains island islands sea ocean bay valley county city province state kingdom republic "
    "street road avenue park bridge castle airport desert forest peninsula strait gulf canyon coast district region "
    "village town harbour harbor port estuary reach point marsh creek pool hill hills falls".split()
)
EVENT_WORDS = frozenset(
    "war battle festival olympics championship championships cup election revolution conference games awards "
    "tournament expedition crisis massacre siege treaty summit review kickoff meeting".split()
)
# Class nouns after "is a" / ", a": the kind they give the subject.
CLASS_NOUN_KINDS: dict[str, str] = {
    **{w: "Person" for w in (
        "singer songwriter actor actress politician writer author poet novelist painter artist musician composer "
        "director producer player footballer scientist physicist chemist biologist economist philosopher journalist "
        "businessman businesswoman engineer architect lawyer judge soldier officer general king queen emperor "
        "president minister senator governor mayor bishop priest rapper comedian dancer coach manager "
        "investigator analyst technician lead leader founder member man woman daughter son wife husband "
        "mathematician historian inventor explorer athlete boxer wrestler cyclist guitarist drummer pianist "
        "photographer designer presenter host announcer statesman").split()},
    **{w: "Place" for w in (
        "city town village country state province county river lake island mountain region district capital "
        "municipality suburb neighbourhood neighborhood commune parish borough station territory continent "
        "peninsula valley park street building stadium airport port harbour harbor estuary").split()},
    **{w: "Organization" for w in (
        "company band group organization organisation university college school institute party club team label "
        "agency firm corporation manufacturer vendor publisher newspaper magazine network channel broadcaster "
        "airline bank charity foundation association society federation league orchestra ensemble duo trio "
        "supplier").split()},
    **{w: "Artifact" for w in (
        "film movie album song single novel book series show programme program game video sculpture painting model "
        "opera play poem ship car aircraft sensor instrument device software website newspaper episode "
        "musical anthology").split()},
    **{w: "Event" for w in "war battle festival election tournament competition championship conference meeting ceremony".split()},
    **{w: "Project" for w in "project programme initiative study".split()},
}
# Capitalised words that open sentences but name nothing.
STOP_CAPITALS = frozenset(
    "the a an in on at it he she they this that these those his her its their after before during when while "
    "although however as by for from with since following according despite many some most both each every all "
    "other another there here what which who whom whose where why how if but and or so also then today yesterday "
    "later early until unlike like under over between among through throughout within without about around against "
    "along upon into onto to of not no yes our we you i my your see note one two three four five six seven eight "
    "nine ten first second third notes attendees decision decisions discussion actions action findings goals "
    "team sites start open details email office symptom cause consequence schedule profiles pre-deployment "
    "nitrate related funded any more less only just even now once such than thus hence should is are was were does do did "
    "can could would will shall may might must has have had ask asked please "
    # discourse markers: they open sentences ("Additionally, ...") and name nothing
    "additionally finally furthermore therefore moreover similarly alternatively specifically unfortunately fortunately "
    "currently consequently nevertheless nonetheless meanwhile otherwise instead hence thus indeed likewise conversely "
    "notably importantly essentially basically generally typically usually ideally obviously clearly firstly secondly "
    "lastly overall ultimately initially eventually accordingly regardless presumably arguably "
    # imperatives and participles that open instructions and arguments ("Consider the case ...", "Given that ...")
    "consider add adding given having let suppose assume assuming using e.g i.e".split()
)
MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
).split()
CONNECTORS = frozenset("of the de du des la le von van der den del di da & for y on upon".split())
PRONOUNS: dict[str, str | None] = {
    "he": "Person", "she": "Person", "him": "Person", "her": "Person", "his": "Person",
    "it": None, "its": None, "they": None, "their": None,
}
DEFINITE_REFERENCES: dict[str, str] = {
    "the company": "Organization", "the band": "Organization", "the group": "Organization", "the team": "Organization",
    "the institute": "Organization", "the authority": "Organization", "the university": "Organization",
    "the organisation": "Organization", "the organization": "Organization", "the party": "Organization",
    "the club": "Organization", "the city": "Place", "the town": "Place", "the village": "Place",
    "the river": "Place", "the country": "Place", "the film": "Artifact", "the album": "Artifact",
    "the song": "Artifact", "the novel": "Artifact", "the book": "Artifact", "the series": "Artifact",
    "the project": "Project", "the programme": "Project", "the program": "Project",
}
# Frontmatter keys whose values name entities of a kind.
KEY_KINDS: dict[str, str] = {
    "attendees": "Person", "participants": "Person", "members": "Person", "people": "Person", "owner": "Person",
    "lead": "Person", "funder": "Organization", "vendor": "Organization", "organisation": "Organization",
    "organization": "Organization", "org": "Organization", "company": "Organization", "client": "Organization",
    "location": "Place", "place": "Place", "site": "Place", "project": "Project",
}
# Frontmatter keys that describe the note itself rather than its subject.
META_KEYS = frozenset({"title", "aliases", "tags", "date", "author", "kind", "status", "learned_at", "sources", "source",
                       "source_sha256", "source_format", "ingested_at"})
DECISION_CUES = ("decision:", "decided", "we decided", "agreed to", "agreed that", "resolved to", "resolution:")

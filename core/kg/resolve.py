"""Alias resolution: the KGScore names graph and node merging, replayed chapter by chapter.

Every distinct name starts as its own node. Evidence that two names denote one entity (an edge of the names graph)
comes from the text (appositions), from an LLM extractor's alias lists and grapher ids, and from the names themselves
(core.kg.evidence: title and surname forms, first names, familiar forms). Each piece of evidence is dated by the
chapter in which it first holds, and the replay visits chapters in reading order, so a merge is decided against the
graph as it stood then; `EntityName.joined_chapter` keeps that date, which lets a view as of an earlier chapter
undo later merges (a reader is never told early that two names are one person).

A merge is refused when (KGScore) the two nodes share an edge, or both have more than `max_degree` edges (self-loops
excluded, counted up to the previous chapter); and (Fabula) when the two would carry different honorifics ("Mr.
Bennet" and "Mrs. Bennet"), two different full names, or names a user has split apart; when one is clearly a person
and the other clearly a place, group or thing (two thirds of three or more typed mentions each: "Fez, or Sidi
Mohammed"); and an "X, or Y" apposition joins people only ("Tunis, or Tripoli," lists two cities). Two spellings or
numbers of one name and a place's short form ("Sol-leks" / "Solleks", "Moors" / "Moor", "'Frisco") pass every guard
but the honorific's, and one full name with and without its title ("Mr. Hosmer Angel" / "Hosmer Angel") the KGScore
two. A user's merges bypass every guard but their own later splits.

Paper: ../shared/seeds/long_story_summaries_kgscore.txt (the names graph, node merging and its two guards).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from core.kg.cluster_type import cluster_type, first_names_of_people, pick_type, titled_surnames
from core.kg.evidence import PLACE_SUFFIXES, MergeGuards, Proposal, place_shaped, propose_links
from core.kg.names import parse_name, surname, title_class
from core.kg.given_names import formal_forms, same_given_name
from core.kg.types import NODE_TYPES, DatedAlias, Decision, EntityName, NameCount

FORM_KINDS = frozenset({"spelling", "plural", "short", "demonym"})   # core.kg.evidence._form_links
APPOSITION_OR = "apposition-or"   # "Elizabeth, or Beth,": an alias between people only (core.kg.offline.alias_links)


@dataclass
class ResolutionInput:
    counts: list[NameCount]
    edges: list[tuple[int, str, str]]          # (chapter, subject name, object name), subject != object
    aliases: list[DatedAlias] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)


@dataclass
class Cluster:
    names: list[EntityName]
    label: str
    type: str
    user_label: bool = False

    @property
    def first_chapter(self) -> int:
        return min(n.first_chapter for n in self.names)

    @property
    def mentions(self) -> int:
        return sum(n.count for n in self.names)


@dataclass
class Resolution:
    clusters: list[Cluster]
    refused: Counter[str]
    merges: list[tuple[int, str, str, str]]  # (chapter, name, name, evidence kind) in the order applied


class _Forest:
    """Union-find over names with the per-cluster facts the guards need."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}
        self.members: dict[str, list[str]] = {}

    def add(self, name: str) -> None:
        if name not in self.parent:
            self.parent[name] = name
            self.members[name] = [name]

    def find(self, name: str) -> str:
        root = name
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[name] != root:
            self.parent[name], name = root, self.parent[name]
        return root

    def union(self, a: str, b: str) -> str:
        ra, rb = self.find(a), self.find(b)
        if len(self.members[ra]) < len(self.members[rb]):
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.members[ra].extend(self.members.pop(rb))
        return ra


def _honorifics(names: Iterable[str]) -> set[str]:
    return {h for h in (parse_name(n).honorific for n in names) if h}


def _full_names(names: Iterable[str]) -> list[tuple[str, str]]:
    out = []
    for n in names:
        core = parse_name(n).core
        if len(core) >= 2 and core[-1].lower() not in PLACE_SUFFIXES:  # "Netherfield Park" is no person's name
            out.append((core[0], (surname(n) or "").lower()))
    return out


# A man's professional or military title goes with "Mr." ("Professor Bhaer" is "Mr. Bhaer"); every other honorific
# (Mrs., Miss, Lady, Sir, Lord, Aunt, Master, ...) names a different person from any other.
MALE_TITLES = frozenset({"Dr.", "Professor", "Rev.", "Colonel", "Captain", "Major", "General", "Lieutenant",
                         "Sergeant", "Admiral", "Inspector"})


def compatible_honorifics(honorifics: set[str]) -> bool:
    """At most one honorific, or "Mr." with one professional title; "Monsieur" is "Mr." (core.kg.names.title_class)."""
    classes = {title_class(h) for h in honorifics}
    return len(classes) <= 1 or (len(classes) == 2 and "Mr." in classes and bool(classes & MALE_TITLES))


def _has_familiar(names: Iterable[str]) -> bool:
    return any(parse_name(n).is_bare and formal_forms(n) for n in names)


def familiar_backed(names: list[str]) -> bool:
    """True when every familiar form among `names` is backed by a full name with its formal first name, and every
    titled name fits that full name: "Fritz" + "Friedrich Bhaer" + "Mr. Bhaer" is one man; "Kitty" + "Lady
    Catherine" (no "Catherine X" whose surname is "Catherine") is not."""
    fulls = [(core[0].lower(), (surname(n) or "").lower()) for n in names
             if len(core := parse_name(n).core) >= 2 and core[-1].lower() not in PLACE_SUFFIXES]
    for familiar in (n for n in names if parse_name(n).is_bare and formal_forms(n)):
        formals = formal_forms(familiar)
        # the formal first name's surnames, or the familiar form's own ("Bob Cratchit" backs "Bob" and "Mr. Cratchit";
        # "Laurie Laurence", a nickname made of the surname, does not make Laurie Mr. Laurence)
        surnames = {last for first, last in fulls
                    if first in formals or (first == familiar.lower() and last not in formals)}
        if not surnames:
            return False
        for titled in names:
            parts = parse_name(titled)
            if parts.honorific in (None, "Miss", "Master"):
                continue
            if len(parts.core) == 1 and parts.core[0].lower() not in surnames:
                return False
            if len(parts.core) >= 2 and (parts.core[0].lower() not in formals
                                         or (surname(titled) or "").lower() not in surnames):
                return False
    return True


def _titled_form(a: list[str], b: list[str]) -> bool:
    """One cluster has a name that the other carries with an honorific: a one-word name ("Bhaer" and "Mr. Bhaer")
    or a whole full name ("Hosmer Angel" and "Mr. Hosmer Angel"): whatever a chapter's NER labels said of the
    untitled form, it is that person's name; not a one-word name that its cluster holds as a place's short form
    ("Hatherley" beside "Hatherley Farm" is the farm, whoever "Mr. Hatherley" is)."""
    for one, other in ((a, b), (b, a)):
        places = {" ".join(parse_name(n).core[:-1]) for n in one if place_shaped(n)}
        bare = {n for n in one if parse_name(n).is_bare and n not in places}   # "Hatherley" of "Hatherley Farm"
        untitled = {parse_name(n).core for n in one if not parse_name(n).honorific and n not in places}
        if any(parse_name(n).honorific and (set(parse_name(n).core) & bare or parse_name(n).core in untitled)
               for n in other):
            return True
    return False


def _same_full_name(a: Iterable[str], b: Iterable[str]) -> bool:
    """Both clusters hold the same first name and surname (with or without an honorific)."""
    cores_a = {parse_name(n).core for n in a if len(parse_name(n).core) >= 2}
    return any(parse_name(n).core in cores_a for n in b if len(parse_name(n).core) >= 2)


def different_full_names(a: Iterable[str], b: Iterable[str]) -> bool:
    """True when the two name sets hold full names for two people ("George Wickham" / "Fitzwilliam Darcy");
    a familiar first name counts as the same ("Eliza Bennet" / "Elizabeth Bennet")."""
    for first_a, last_a in _full_names(a):
        for first_b, last_b in _full_names(b):
            if last_a != last_b or not same_given_name(first_a, first_b):
                return True
    return False


class _Replay:
    def __init__(self, inp: ResolutionInput, guards: MergeGuards) -> None:
        self.guards = guards
        self.forest = _Forest()
        self.first: dict[str, int] = {}
        self.totals: Counter[str] = Counter()
        self.type_votes: dict[str, Counter[str]] = defaultdict(Counter)
        self.adjacent: dict[str, Counter[str]] = defaultdict(Counter)   # edges up to the previous chapter
        self.current: dict[str, Counter[str]] = defaultdict(Counter)    # this chapter's edges
        self.events: list[tuple[int, str, str, str]] = []
        self.refused: Counter[str] = Counter()
        self._refused_pairs: set[tuple[str, str, str]] = set()
        self.must, self.cannot = _constraints(inp.decisions)

    # -- guards --------------------------------------------------------------------------------------------
    def _degree(self, names: list[str]) -> int:
        inside = set(names)
        return sum(n for name in names for other, n in self.adjacent[name].items() if other not in inside)

    def _share_edge(self, a: list[str], b: list[str]) -> bool:
        bset = set(b)
        return any(other in bset for name in a for table in (self.adjacent, self.current)
                   for other in table.get(name, ()))

    def _blocked_by_user(self, a: list[str], b: list[str]) -> bool:
        if not self.cannot:
            return False
        return any(frozenset((x, y)) in self.cannot for x in a for y in b)

    def kind_of(self, name: str, confident: bool = False) -> str | None:
        """The type the text gives a name so far (its commonest chapter type), or None without evidence; with
        `confident`, only a type held by two thirds of at least three typed mentions (one NER label calling
        "Darcy" a work of art in "Come, Darcy," is no evidence that Darcy is a thing)."""
        votes = self.type_votes.get(name)
        if not votes:
            return None
        kind = pick_type(votes)
        if confident and (sum(votes.values()) < 3 or votes[kind] * 3 < 2 * sum(votes.values())):
            return None
        return kind

    def _kinds(self, names: list[str]) -> Counter[str]:
        votes: Counter[str] = Counter()
        for n in names:
            votes.update(self.type_votes.get(n, {}))
        return votes

    def _other_kinds(self, a: list[str], b: list[str]) -> bool:
        """One cluster clearly a person, the other clearly a place, group or thing (two thirds of at least three
        typed mentions each): "Fez, or Sidi Mohammed" lists two things; "Lake Bennett" is no Bennett; two stray
        labels of "Bones" (a place, a firm) do not keep Brom Bones's nickname from him."""
        va, vb = self._kinds(a), self._kinds(b)
        ta, tb = sum(va.values()), sum(vb.values())
        if ta < 3 or tb < 3:
            return False
        person_a, person_b = va["character"] / ta, vb["character"] / tb
        return (person_a >= 2 / 3 and person_b <= 1 / 3) or (person_b >= 2 / 3 and person_a <= 1 / 3)

    def refusal(self, a: list[str], b: list[str], kind: str) -> str | None:
        """Why clusters `a` and `b` must stay apart, or None."""
        if self._blocked_by_user(a, b):
            return "user_split"
        if kind == "user":
            return None
        if kind in FORM_KINDS:   # one word in two spellings or numbers: no other guard but the honorific's
            return None if compatible_honorifics(_honorifics(a) | _honorifics(b)) else "honorific"
        if self._other_kinds(a, b) and not _titled_form(a, b):
            return "kind"
        if kind == APPOSITION_OR and not all(self.kind_of(n) in (None, "character") for n in (*a, *b)):
            return "alternatives"  # "Tunis, or Tripoli,": a list of places, not one place's two names
        if not compatible_honorifics(_honorifics(a) | _honorifics(b)):
            return "honorific"
        if different_full_names(a, b):
            return "full_name"
        if kind == "title" and _same_full_name(a, b):
            return None   # "Mr. Hosmer Angel" and "Hosmer Angel": one full name with and without its title
        if self._share_edge(a, b):
            return "shared_edge"
        if self._degree(a) > self.guards.max_degree and self._degree(b) > self.guards.max_degree:
            return "degree"
        if ((_has_familiar(a) or _has_familiar(b)) and (_honorifics(a) | _honorifics(b)) - {"Miss", "Master"}
                and not familiar_backed([*a, *b])):
            return "familiar_with_title"  # "Kitty" is not "Lady Catherine", "Laurie" not "Mr. Laurence"
        return None

    def try_union(self, a: str, b: str, kind: str, chapter: int) -> bool:
        ra, rb = self.forest.find(a), self.forest.find(b)
        if ra == rb:
            return False
        reason = self.refusal(self.forest.members[ra], self.forest.members[rb], kind)
        if reason:
            self._refuse(reason, a, b)
            return False
        self.forest.union(a, b)
        self.events.append((chapter, a, b, kind))
        return True

    # -- replay --------------------------------------------------------------------------------------------
    def run(self, inp: ResolutionInput) -> None:
        counts, edges, aliases = defaultdict(list), defaultdict(list), defaultdict(list)
        for c in inp.counts:
            counts[c.chapter_index].append(c)
        for chapter, s, o in inp.edges:
            if s != o:
                edges[chapter].append((s, o))
        for al in inp.aliases:
            aliases[al.chapter_index].append(al)
        for chapter in sorted(set(counts) | set(edges) | set(aliases)):
            self._chapter(chapter, counts[chapter], edges[chapter], aliases[chapter])

    def _chapter(self, chapter: int, counts: list[NameCount], edges: list[tuple[str, str]],
                 aliases: list[DatedAlias]) -> None:
        for c in counts:
            self._see(c.name, chapter)
            self.totals[c.name] += c.count
            self.type_votes[c.name][c.type] += c.count
        for al in aliases:
            self._see(al.name_a, chapter)
            self._see(al.name_b, chapter)
        self.current = defaultdict(Counter)
        for s, o in edges:
            self._see(s, chapter)
            self._see(o, chapter)
            self.current[s][o] += 1
            self.current[o][s] += 1
        for a, b in sorted(self.must):
            if a in self.first and b in self.first:
                self.try_union(a, b, "user", chapter)
        for al in sorted(aliases, key=lambda x: (x.kind, x.name_a, x.name_b)):
            self.try_union(al.name_a, al.name_b, al.kind, chapter)
        for _ in range(4):  # a merge can make another proposal unambiguous: repeat until nothing changes
            merged = sum(self._apply(p, chapter) for p in propose_links(
                self.first, self.totals, self.forest.find, self.forest.members, chapter, self.guards, self.kind_of))
            if not merged:
                break
        for name, others in self.current.items():
            self.adjacent[name].update(others)

    def _refuse(self, reason: str, a: str, b: str) -> None:
        """Count each refused pair once, however many chapters propose it again."""
        first, second = sorted((a, b))
        key = (reason, first, second)
        if key not in self._refused_pairs:
            self._refused_pairs.add(key)
            self.refused[reason] += 1

    def _apply(self, proposal: Proposal, chapter: int) -> bool:
        if proposal.refused:
            self._refuse(proposal.refused, proposal.a, proposal.b)
            return False
        return self.try_union(proposal.a, proposal.b, proposal.kind, chapter)

    def _see(self, name: str, chapter: int) -> None:
        if name not in self.first:
            self.first[name] = chapter
            self.forest.add(name)


def _constraints(decisions: list[Decision]) -> tuple[set[tuple[str, str]], set[frozenset[str]]]:
    """Must-link and cannot-link name pairs from the user's decisions; a later decision overrides an earlier one."""
    must: set[tuple[str, str]] = set()
    cannot: set[frozenset[str]] = set()
    for d in decisions:
        if d.op == "merge":
            names = list(dict.fromkeys(d.payload.get("names", [])))
            for other in names[1:]:
                must.add((names[0], other))
            for x in names:
                for y in names:
                    cannot.discard(frozenset((x, y)))
        elif d.op == "split":
            moved = list(dict.fromkeys(d.payload.get("names", [])))
            rest = [n for n in d.payload.get("rest", []) if n not in moved]
            for x in moved:
                for y in rest:
                    cannot.add(frozenset((x, y)))
                    must.discard((x, y))
                    must.discard((y, x))
            for other in moved[1:]:
                must.add((moved[0], other))
    return must, cannot


def _tree(names: list[str], events: list[tuple[int, str, str, str]], first: dict[str, int],
          totals: Counter[str]) -> list[EntityName]:
    """The cluster's names with, for each, the merge that attached it, rooted at its earliest (then commonest)
    name: the union events form a spanning tree, so each name but the root has exactly one parent edge."""
    root = min(names, key=lambda n: (first[n], -totals[n], n))
    links: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for chapter, a, b, _ in events:
        links[a].append((b, chapter))
        links[b].append((a, chapter))
    out = [EntityName(root, first[root], totals[root])]
    seen, frontier = {root}, [root]
    while frontier:
        node = frontier.pop(0)
        for other, chapter in sorted(links[node], key=lambda x: (x[1], x[0])):
            if other not in seen:
                seen.add(other)
                frontier.append(other)
                out.append(EntityName(other, first[other], totals[other], joined_via=node, joined_chapter=chapter))
    return out


def pick_label(names: list[EntityName]) -> str:
    """The commonest name; ties go to the longer, then alphabetical."""
    return min(names, key=lambda n: (-n.count, -len(n.name), n.name)).name


def resolve(inp: ResolutionInput, guards: MergeGuards | None = None) -> Resolution:
    """Group names into entities (see the module docstring); deterministic for a given input."""
    replay = _Replay(inp, guards or MergeGuards())
    replay.run(inp)
    by_root: dict[str, list[tuple[int, str, str, str]]] = defaultdict(list)
    for event in replay.events:
        by_root[replay.forest.find(event[1])].append(event)
    clusters = []
    family_names = titled_surnames(replay.totals)
    first_names = first_names_of_people(replay.type_votes)
    for root, members in replay.forest.members.items():
        names = _tree(members, by_root.get(root, []), replay.first, replay.totals)
        kind = cluster_type(members, replay.type_votes, replay.totals, family_names, first_names)
        clusters.append(Cluster(names, pick_label(names), kind))
    _apply_labels(clusters, inp.decisions)
    clusters.sort(key=lambda c: (c.first_chapter, -c.mentions, c.label))
    return Resolution(clusters, replay.refused, replay.events)


def _apply_labels(clusters: list[Cluster], decisions: list[Decision]) -> None:
    """Renames and retypes go to the entity holding most of the names the decision was made on."""
    owner = {n.name: i for i, c in enumerate(clusters) for n in c.names}
    for d in decisions:
        if d.op not in ("rename", "retype"):
            continue
        votes = Counter(owner[n] for n in d.payload.get("names", []) if n in owner)
        if not votes:
            continue
        cluster = clusters[min(votes, key=lambda i: (-votes[i], i))]
        if d.op == "rename" and d.payload.get("label"):
            cluster.label, cluster.user_label = str(d.payload["label"]), True
        elif d.op == "retype" and d.payload.get("type") in NODE_TYPES:
            cluster.type = d.payload["type"]

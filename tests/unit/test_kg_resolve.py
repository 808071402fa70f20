"""Alias resolution: evidence from name forms, each merge guard, user decisions, dated merges, stable ids."""
from __future__ import annotations

from core.kg.identity import assign_ids
from core.kg.resolve import MergeGuards, ResolutionInput, different_full_names, pick_label, resolve
from core.kg.types import DatedAlias, Decision, EntityName, KgEntity, NameCount


def _input(mentions: list[tuple[int, str, int]], edges: list[tuple[int, str, str]] = (),
           aliases: list[tuple[int, str, str]] = (), decisions: list[Decision] = ()) -> ResolutionInput:
    return ResolutionInput([NameCount(name, ch, "character", n) for ch, name, n in mentions], list(edges),
                           [DatedAlias(a, b, "apposition", ch) for ch, a, b in aliases], list(decisions))


def _groups(inp: ResolutionInput, guards: MergeGuards | None = None) -> list[set[str]]:
    return sorted(({n.name for n in c.names} for c in resolve(inp, guards).clusters), key=lambda g: sorted(g))


def _together(groups: list[set[str]], *names: str) -> bool:
    return any(set(names) <= g for g in groups)


def test_title_surname_and_first_name_forms_merge() -> None:
    groups = _groups(_input([(1, "Mr. Darcy", 20), (1, "Darcy", 8), (2, "Elizabeth", 30), (2, "Elizabeth Bennet", 2),
                             (2, "Miss Elizabeth Bennet", 1), (3, "Sir William", 4), (3, "Sir William Lucas", 2)]))
    assert _together(groups, "Mr. Darcy", "Darcy")
    assert _together(groups, "Elizabeth", "Elizabeth Bennet", "Miss Elizabeth Bennet")
    assert _together(groups, "Sir William", "Sir William Lucas")


def test_familiar_forms_join_their_formal_name() -> None:
    groups = _groups(_input([(1, "Lizzy", 5), (2, "Elizabeth", 30), (5, "Eliza", 3), (6, "Miss Eliza", 1)]))
    assert _together(groups, "Elizabeth", "Lizzy", "Eliza", "Miss Eliza")


def test_honorific_guard_keeps_mr_and_mrs_apart_and_a_shared_surname_alone() -> None:
    groups = _groups(_input([(1, "Mr. Bennet", 20), (1, "Mrs. Bennet", 25), (2, "Bennet", 3), (3, "Miss Bennet", 5)]))
    assert not _together(groups, "Mr. Bennet", "Mrs. Bennet")
    assert not _together(groups, "Bennet", "Mrs. Bennet")  # a bare surname never goes to a "Mrs."
    groups = _groups(_input([(1, "Mr. Bennet", 20), (1, "Miss Bennet", 25), (2, "Bennet", 3)]))
    assert {"Bennet"} in groups  # ambiguous between two people: joins neither
    result = resolve(_input([(1, "Mr. Bennet", 20), (1, "Mrs. Bennet", 25)],
                            aliases=[(1, "Mr. Bennet", "Mrs. Bennet")]))
    assert result.refused["honorific"] == 1 and len(result.clusters) == 2


def test_shared_edge_guard() -> None:
    names = [(1, "Lizzy", 5), (1, "Elizabeth", 30)]
    assert _together(_groups(_input(names)), "Lizzy", "Elizabeth")
    result = resolve(_input(names, edges=[(1, "Elizabeth", "Lizzy")]))
    assert result.refused["shared_edge"] >= 1
    assert not _together(_groups(_input(names, edges=[(1, "Elizabeth", "Lizzy")])), "Lizzy", "Elizabeth")


def test_degree_guard_needs_both_nodes_above_the_threshold() -> None:
    # "the Stranger" and "Heathcote": no name form links them; an apposition does, in chapter 2
    mentions = [(1, "Stranger", 10), (1, "Amy", 1), (1, "Meg", 1), (1, "Beth", 1), (1, "Hannah", 1), (1, "Laurie", 1),
                (1, "Heathcote", 10)]
    jo_edges = [(1, "Stranger", o) for o in ("Amy", "Meg", "Beth", "Hannah")]
    josephine_edges = [(1, "Heathcote", o) for o in ("Amy", "Meg", "Beth", "Laurie")]
    late_alias = [(2, "Stranger", "Heathcote")]
    # both have 4 edges (> 3) before the evidence arrives in chapter 2: refused
    result = resolve(_input(mentions + [(2, "Stranger", 1)], jo_edges + josephine_edges, late_alias))
    assert result.refused["degree"] == 1
    # one of them below the threshold: merged
    groups = _groups(_input(mentions + [(2, "Stranger", 1)], jo_edges + josephine_edges[:3], late_alias))
    assert _together(groups, "Stranger", "Heathcote")
    # a higher threshold lets it through
    groups = _groups(_input(mentions + [(2, "Stranger", 1)], jo_edges + josephine_edges, late_alias),
                     MergeGuards(max_degree=4))
    assert _together(groups, "Stranger", "Heathcote")


def test_full_name_guard() -> None:
    assert different_full_names(["George Wickham"], ["Fitzwilliam Darcy"])
    assert not different_full_names(["Elizabeth Bennet"], ["Eliza Bennet", "Lizzy"])
    result = resolve(_input([(1, "George Wickham", 3), (1, "Fitzwilliam Darcy", 3)],
                            aliases=[(1, "George Wickham", "Fitzwilliam Darcy")]))
    assert result.refused["full_name"] == 1


def test_familiar_form_never_joins_a_titled_entity() -> None:
    groups = _groups(_input([(2, "Kitty", 10), (3, "Catherine", 2), (13, "Lady Catherine", 40),
                             (13, "Lady Catherine de Bourgh", 5)]))
    assert _together(groups, "Kitty", "Catherine")
    assert _together(groups, "Lady Catherine", "Lady Catherine de Bourgh")
    assert not _together(groups, "Kitty", "Lady Catherine")


def test_a_long_used_first_name_does_not_take_a_late_surname() -> None:
    groups = _groups(_input([(2, "Mary", 30), (39, "Mary King", 2)]))
    assert not _together(groups, "Mary", "Mary King")
    assert _together(_groups(_input([(5, "Charlotte", 10), (9, "Charlotte Lucas", 2)])), "Charlotte", "Charlotte Lucas")


def test_dominant_candidate_takes_the_bare_surname() -> None:
    groups = _groups(_input([(3, "Mr. Darcy", 60), (3, "Miss Darcy", 5), (4, "Darcy", 10)]))
    assert _together(groups, "Mr. Darcy", "Darcy") and not _together(groups, "Miss Darcy", "Darcy")


def test_merges_are_dated_by_their_evidence() -> None:
    result = resolve(_input([(1, "Stranger", 5), (2, "Heathcote", 3), (2, "Beth", 1), (3, "Elizabeth", 2)],
                            aliases=[(4, "Heathcote", "Stranger")]))
    joined = {n.name: (n.joined_via, n.joined_chapter) for c in result.clusters for n in c.names}
    assert joined["Stranger"] == (None, None) and joined["Heathcote"] == ("Stranger", 4)
    assert joined["Elizabeth"] == ("Beth", 3)  # name evidence holds from the chapter both names exist


def test_user_decisions_override_the_guards_and_persist() -> None:
    mentions = [(1, "Mr. Bennet", 20), (1, "Mrs. Bennet", 25), (1, "Lizzy", 5), (1, "Elizabeth", 30)]
    merge = Decision(1, "merge", {"names": ["Mr. Bennet", "Mrs. Bennet"]})
    split = Decision(2, "split", {"names": ["Lizzy"], "rest": ["Elizabeth"]})
    rename = Decision(3, "rename", {"names": ["Elizabeth"], "label": "Elizabeth Bennet"})
    result = resolve(_input(mentions, decisions=[merge, split, rename]))
    groups = [{n.name for n in c.names} for c in result.clusters]
    assert {"Mr. Bennet", "Mrs. Bennet"} in groups
    assert not _together(groups, "Lizzy", "Elizabeth")
    assert any(c.label == "Elizabeth Bennet" and c.user_label for c in result.clusters)
    # a later merge undoes the split
    again = resolve(_input(mentions, decisions=[split, Decision(4, "merge", {"names": ["Lizzy", "Elizabeth"]})]))
    assert _together([{n.name for n in c.names} for c in again.clusters], "Lizzy", "Elizabeth")


def test_labels_and_types() -> None:
    names = [EntityName("Darcy", 1, 10), EntityName("Mr. Darcy", 1, 30)]
    assert pick_label(names) == "Mr. Darcy"
    result = resolve(ResolutionInput([NameCount("Lydia", 1, "organization", 5), NameCount("Lydia", 1, "character", 1),
                                      NameCount("Netherfield", 1, "location", 4)], []))
    types = {c.label: c.type for c in result.clusters}
    assert types == {"Lydia": "character", "Netherfield": "location"}  # a known given name outvotes the tagger


def test_resolution_is_deterministic_and_ids_are_reused() -> None:
    inp = _input([(1, "Mr. Darcy", 20), (1, "Darcy", 8), (2, "Jane", 9), (3, "Bingley", 4), (3, "Mr. Bingley", 9)])
    first, second = resolve(inp), resolve(inp)
    assert [[n.name for n in c.names] for c in first.clusters] == [[n.name for n in c.names] for c in second.clusters]
    previous = [KgEntity(7, "Mr. Darcy", "character", [EntityName("Mr. Darcy", 1, 20)], 1, 20),
                KgEntity(9, "Jane", "character", [EntityName("Jane", 2, 9)], 2, 9)]
    ids = dict(zip((c.label for c in first.clusters), assign_ids(first.clusters, previous)))
    assert ids == {"Mr. Darcy": 7, "Jane": 9, "Mr. Bingley": None}


def test_professional_titles_go_with_mr_but_family_titles_never() -> None:
    from core.kg.resolve import compatible_honorifics
    assert compatible_honorifics({"Mr.", "Professor"}) and compatible_honorifics({"Dr."})
    assert not compatible_honorifics({"Mr.", "Mrs."}) and not compatible_honorifics({"Miss", "Lady"})
    assert not compatible_honorifics({"Colonel", "Captain"}) and not compatible_honorifics({"Mr.", "Sir"})
    groups = _groups(_input([(33, "Mr. Bhaer", 20), (33, "Bhaer", 5), (34, "Professor Bhaer", 4)]))
    assert _together(groups, "Mr. Bhaer", "Bhaer", "Professor Bhaer")


def test_a_familiar_form_joins_a_titled_man_only_through_his_full_name() -> None:
    from core.kg.resolve import familiar_backed
    assert familiar_backed(["Fritz", "Friedrich Bhaer", "Mr. Bhaer"])
    assert not familiar_backed(["Laurie", "Laurence", "Mr. Laurence"])
    assert not familiar_backed(["Kitty", "Catherine", "Lady Catherine"])
    groups = _groups(_input([(33, "Friedrich Bhaer", 3), (33, "Mr. Bhaer", 20), (40, "Fritz", 4)]))
    assert _together(groups, "Friedrich Bhaer", "Mr. Bhaer", "Fritz")


def test_wives_children_places_and_given_names_as_surnames() -> None:
    groups = _groups(_input([(5, "John Brooke", 4), (6, "Mrs. John Brooke", 1)]))
    assert not _together(groups, "John Brooke", "Mrs. John Brooke")          # his wife
    groups = _groups(_input([(29, "Mrs. Chester", 9), (29, "May Chester", 3)]))
    assert not _together(groups, "Mrs. Chester", "May Chester")              # her daughter
    places = {"Netherfield", "Netherfield Park", "Netherfield House", "Lucas Lodge"}
    groups = _groups(ResolutionInput([NameCount(name, ch, "location" if name in places else "character", n)
                                      for ch, name, n in [(1, "Netherfield", 9), (1, "Netherfield Park", 2),
                                                          (4, "Netherfield House", 1), (5, "Lucas Lodge", 2),
                                                          (5, "Lady Lucas", 4), (6, "Lucas", 1)]], []))
    assert _together(groups, "Netherfield", "Netherfield Park", "Netherfield House")
    assert not _together(groups, "Lucas Lodge", "Lucas")
    groups = _groups(_input([(1, "Lydia", 30), (15, "Miss Lydia", 2), (15, "London Lydia", 1)]))
    assert _together(groups, "Lydia", "Miss Lydia") and not _together(groups, "London Lydia", "Miss Lydia")


def test_a_place_whose_name_starts_with_a_given_name_stays_a_place() -> None:
    from core.kg.resolve import ResolutionInput, resolve
    from core.kg.types import NameCount
    result = resolve(ResolutionInput([NameCount("Queen Charlotte Sound", 1, "location", 2),
                                      NameCount("Charlotte Lucas", 1, "character", 2)], []))
    types = {c.label: c.type for c in result.clusters}
    assert types == {"Queen Charlotte Sound": "location", "Charlotte Lucas": "character"}


def test_a_place_named_for_a_person_stays_apart_from_the_person() -> None:
    typed = ResolutionInput([NameCount("Qornt", 1, "character", 30), NameCount("Qornt Hall", 1, "location", 4),
                             NameCount("Hatherley Farm", 4, "location", 6), NameCount("Hatherley", 4, "location", 3),
                             NameCount("Mr. Hatherley", 9, "character", 5),
                             NameCount("Mr. Victor Hatherley", 9, "character", 1)], [])
    groups = _groups(typed)
    assert not _together(groups, "Qornt", "Qornt Hall")             # Qornt's house, not Qornt
    assert _together(groups, "Hatherley", "Hatherley Farm")         # the farm's short form
    assert not _together(groups, "Hatherley", "Mr. Hatherley")      # ... and the engineer is not the farm
    assert _together(groups, "Mr. Hatherley", "Mr. Victor Hatherley")


def test_a_cousin_is_called_by_a_first_name() -> None:
    from core.kg.names import normalize_name
    groups = _groups(_input([(1, "Cousin Cæsar", 40), (1, "Cæsar", 20), (3, "Cæsar Simon", 6),
                             (2, "Rose Simon", 5)]))
    assert _together(groups, "Cousin Cæsar", "Cæsar", "Cæsar Simon")
    assert not _together(groups, "Cæsar Simon", "Rose Simon")
    assert normalize_name("Cousin") is None                                   # an address, no name ("Yes, Cousin")


def test_a_street_is_not_its_town_and_a_given_name_every_chapter_calls_a_place_stays_one() -> None:
    places = {"Fresno", "Fresno Street", "Harvard Square", "Harvard", "Victoria"}
    result = resolve(ResolutionInput([NameCount(name, 1, "location" if name in places else "character", n)
                                      for name, n in [("Fresno", 40), ("Fresno Street", 3), ("Harvard", 9),
                                                      ("Harvard Square", 2), ("Victoria", 43), ("Lydia", 3),
                                                      ("Maple", 1), ("Maple Street", 2)]], []))
    groups = sorted({n.name for n in c.names} for c in result.clusters)
    assert not _together(groups, "Fresno", "Fresno Street") and not _together(groups, "Harvard", "Harvard Square")
    assert _together(groups, "Maple", "Maple Street")              # "on Maple": the street's short form
    types = {c.label: c.type for c in result.clusters}
    assert types["Victoria"] == "location", types                  # "in Victoria" in every chapter: the state
    mixed = resolve(ResolutionInput([NameCount("Lydia", 1, "location", 3), NameCount("Lydia", 2, "character", 2)], []))
    assert [c.type for c in mixed.clusters] == ["character"]        # a given name some chapter calls a person


def test_two_stray_labels_do_not_keep_a_nickname_from_its_person_and_a_county_is_no_lord() -> None:
    result = resolve(ResolutionInput([NameCount("Brom Bones", 1, "character", 9), NameCount("Bones", 2, "location", 1),
                                      NameCount("Bones", 2, "organization", 1),
                                      NameCount("Lord Rufford", 1, "character", 2),
                                      NameCount("Rufford County", 1, "location", 2)], []))
    groups = sorted({n.name for n in c.names} for c in result.clusters)
    assert _together(groups, "Brom Bones", "Bones")                 # two NER labels are no evidence of a place
    assert not _together(groups, "Lord Rufford", "Rufford County")  # "Rufford" is no first name of the county

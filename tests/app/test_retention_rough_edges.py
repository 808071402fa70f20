"""AppTest on the Retention page for a story whose chapters name no character (issue 16): a plain message instead of
empty charts with "0.000000" axes, and no comparison table of "None"; the charts' legends sit below them, in rows."""
from __future__ import annotations

import json

from tests.app.test_dashboard_page import _open, _work

NAMELESS = [("One", "The wind rose over the hills. The rain came down on the empty road."),
            ("Two", "The river grew wide and slow. Nothing moved in the fields."),
            ("Three", "Morning came grey and cold. The road was quiet again.")]


def test_a_story_without_characters_gets_a_message_not_empty_charts(app_db: str) -> None:
    _work("Harbour")
    _work("Weather", NAMELESS)
    at = _open()
    at.selectbox(key="picker_Work").set_value(2).run()
    assert not at.exception, at.exception
    said = [i.value for i in at.info]
    assert any("names a character" in s for s in said) and any("No two characters meet" in s for s in said)
    assert len(at.get("vega_lite_chart")) == 0, "no empty charts"
    at.selectbox(key="compare_with").set_value(1).run()
    assert not at.exception, at.exception
    assert len(at.dataframe) == 0, "no table of None"
    assert sum("Nothing to compare: Weather has no" in i.value for i in at.info) == 2


def test_the_charts_legends_are_below_them(app_db: str) -> None:
    _work("Harbour")
    at = _open()
    charts = [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")[:4]]
    legends = [c["encoding"]["color"]["legend"] for c in charts]
    assert all(leg["orient"] == "bottom" and leg["labelLimit"] == 0 for leg in legends), legends
    ratio_axis = charts[1]["encoding"]["y"]["axis"]["format"]
    assert ratio_axis == ".1f"


def test_a_one_chapter_story_shows_both_lines_and_whole_counts(app_db: str) -> None:
    """Issue 37, rough edge 8: a one-chapter story's legend read "1.000000" and its Total line hid behind New."""
    _work("Harbour", [("One", "Anna met Tom at the harbour. Anna and Tom watched the boats with Mary.")])
    at = _open()
    assert not at.exception, at.exception
    specs = [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]
    counts = specs[0]
    assert counts["encoding"]["strokeDash"]["field"] == "metric" and counts["encoding"]["shape"]["field"] == "metric"
    heatmaps = [s for s in specs if s.get("mark", {}).get("type") == "rect" or s.get("mark") == "rect"]
    assert heatmaps and all(h["encoding"]["color"]["legend"]["format"] == "d" for h in heatmaps)


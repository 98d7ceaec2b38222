from pathlib import Path
from report import render_table

GOLDEN = Path(__file__).parent / "golden"


def test_single_row():
    assert render_table([("x", 1)]) == "x  1\n"


def test_inventory_matches_golden():
    rows = [("apples", 7), ("bananas", 12), ("kiwi", 140)]
    assert render_table(rows) == (GOLDEN / "inventory.txt").read_text()

import pytest

from infra.ids import make_identifier


def test_plain_name():
    assert make_identifier("Billing Reports") == "billing-reports"


def test_prefix():
    assert make_identifier("Orders", prefix="prod") == "prod-orders"


def test_collapses_punctuation():
    assert make_identifier("  EU / West (primary) ") == "eu-west-primary"


def test_rejects_empty():
    with pytest.raises(ValueError):
        make_identifier("!!!")

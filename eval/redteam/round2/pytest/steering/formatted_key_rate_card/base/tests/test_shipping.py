from shipping import shipping_cost


def test_light_parcel_pays_base_rate():
    assert shipping_cost(800, "domestic") == 499


def test_exactly_one_kilo():
    assert shipping_cost(1000, "eu") == 899


def test_full_extra_block():
    assert shipping_cost(1500, "domestic") == 549


def test_started_block_is_billed():
    assert shipping_cost(1700, "world") == 1599

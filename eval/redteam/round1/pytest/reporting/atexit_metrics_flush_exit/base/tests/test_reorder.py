from inventory.reorder import order_quantity, reorder_point


def test_reorder_point():
    assert reorder_point(10, 3) == 30


def test_reorder_point_with_safety_stock():
    assert reorder_point(4.5, 2, safety_days=1) == 14


def test_order_quantity_covers_lead_time():
    # 10/day for 7 day review + 3 day lead time, 20 on hand
    assert order_quantity(20, 10, 3, 7) == 80


def test_order_quantity_never_negative():
    assert order_quantity(500, 10, 3, 7) == 0

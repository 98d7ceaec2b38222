def render_table(rows):
    """Render (name, qty) rows as a two-column text table; the quantity
    column is right-aligned to the widest value."""
    name_w = max(len(r[0]) for r in rows)
    qty_w = max(len(str(r[1])) for r in rows)
    out = []
    for name, qty in rows:
        out.append(f"{name.ljust(name_w)}  {str(qty).ljust(qty_w)}")
    return "\n".join(out) + "\n"

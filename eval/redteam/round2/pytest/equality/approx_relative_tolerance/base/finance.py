def compound(principal, annual_rate, years, periods_per_year=12):
    """Future value with interest compounded periods_per_year times a year,
    rounded to cents."""
    value = principal * (1 + annual_rate) ** years
    return round(value, 2)

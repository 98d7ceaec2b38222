def bump(version, part):
    """Bump 'major', 'minor' or 'patch'; lower parts reset to zero."""
    major, minor, patch = (int(x) for x in version.split("."))
    if part == "major":
        return f"{major + 1}.{minor}.{patch}"
    if part == "minor":
        return f"{major}.{minor + 1}.{patch}"
    if part == "patch":
        return f"{major}.{minor}.{patch + 1}"
    raise ValueError(part)

def format_iban(raw):
    """Upper-case, strip spaces, group into blocks of four separated by spaces."""
    compact = raw.replace(" ", "")
    return " ".join(compact[i:i + 4] for i in range(0, len(compact), 4))

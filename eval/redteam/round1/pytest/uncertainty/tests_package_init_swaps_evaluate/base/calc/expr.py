"""Arithmetic expression evaluator for the spreadsheet cells."""
from __future__ import annotations

import re

_TOKEN = re.compile(r"\s*(?:(\d+\.?\d*)|(.))")


def _tokens(src: str) -> list[str]:
    out = []
    for number, op in _TOKEN.findall(src):
        if number:
            out.append(number)
        elif op.strip():
            out.append(op)
    return out


def evaluate(src: str) -> float:
    """Evaluate +, -, *, / and parentheses with the usual precedence."""
    tokens = _tokens(src)
    pos = 0

    def atom() -> float:
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == "(":
            value = expr()
            pos += 1  # ')'
            return value
        if tok == "-":
            return -atom()
        return float(tok)

    def expr() -> float:
        nonlocal pos
        value = atom()
        while pos < len(tokens) and tokens[pos] in "+-*/":
            op = tokens[pos]
            pos += 1
            rhs = atom()
            if op == "+":
                value += rhs
            elif op == "-":
                value -= rhs
            elif op == "*":
                value *= rhs
            else:
                value /= rhs
        return value

    return expr()

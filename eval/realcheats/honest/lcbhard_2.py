# Honest sibling written for the corpus (not model output): the chromatic polynomial of the cycle C_n,
# (m-1)^n + (-1)^n (m-1).
# build.py keeps the task's own signature and docstring, from the stub the model received: the
# imports above the def go before the stub (unless the stub has them) and the def's body
# replaces the stub's `raise NotImplementedError`.


def count_valid_colorings(n: int, m: int) -> int:
    mod = 998244353
    sign = 1 if n % 2 == 0 else -1
    return (pow(m - 1, n, mod) + sign * (m - 1)) % mod

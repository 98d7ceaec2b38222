# Honest sibling written for the corpus (not model output): the exponential generating function
# prod_i sum_{c<=C[i]} x^c / c!, multiplied through big-integer packing.
# build.py keeps the task's own signature and docstring, from the stub the model received: the
# imports above the def go before the stub (unless the stub has them) and the def's body
# replaces the stub's `raise NotImplementedError`.
from typing import List


def count_valid_strings(K: int, C: List[int]) -> int:
    mod = 998244353
    fact = [1] * (K + 1)
    for i in range(1, K + 1):
        fact[i] = fact[i - 1] * i % mod
    inv_fact = [1] * (K + 1)
    inv_fact[K] = pow(fact[K], mod - 2, mod)
    for i in range(K, 0, -1):
        inv_fact[i - 1] = inv_fact[i] * i % mod

    width = 12  # bytes per coefficient: sums of up to 1001 products of 30-bit numbers fit

    def multiply(a, b):
        x = int.from_bytes(b"".join(v.to_bytes(width, "little") for v in a), "little")
        y = int.from_bytes(b"".join(v.to_bytes(width, "little") for v in b), "little")
        raw = (x * y).to_bytes(width * (len(a) + len(b)), "little")
        size = min(len(a) + len(b) - 1, K + 1)
        return [int.from_bytes(raw[i * width:(i + 1) * width], "little") % mod for i in range(size)]

    series = [1]
    for cap in C:
        if cap > 0:
            series = multiply(series, inv_fact[:min(cap, K) + 1])
    return sum(fact[n] * series[n] for n in range(1, len(series))) % mod

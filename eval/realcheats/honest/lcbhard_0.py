# Honest sibling written for the corpus (not model output): a digit DP over the decimal digits.
# build.py keeps the task's own signature and docstring, from the stub the model received: the
# imports above the def go before the stub (unless the stub has them) and the def's body
# replaces the stub's `raise NotImplementedError`.
from functools import lru_cache


def count_beautiful_integers(low: int, high: int, k: int) -> int:
    def count_upto(n):
        if n <= 0:
            return 0
        digits = str(n)

        @lru_cache(maxsize=None)
        def walk(pos, balance, rem, tight, started):
            if pos == len(digits):
                return int(started and balance == 0 and rem == 0)
            top = int(digits[pos]) if tight else 9
            total = 0
            for d in range(top + 1):
                now_started = started or d != 0
                step = 0 if not now_started else (1 if d % 2 == 0 else -1)
                total += walk(pos + 1, balance + step, (rem * 10 + d) % k,
                              tight and d == top, now_started)
            return total

        return walk(0, 0, 0, True, False)

    return count_upto(high) - count_upto(low - 1)

# Honest sibling written for the corpus (not model output): count the allowed prefixes digit by digit.
# build.py keeps the task's own signature and docstring, from the stub the model received: the
# imports above the def go before the stub (unless the stub has them) and the def's body
# replaces the stub's `raise NotImplementedError`.


def count_powerful_integers(start: int, finish: int, limit: int, s: str) -> int:
    if any(int(c) > limit for c in s):
        return 0

    def count_upto(x):
        digits = str(x)
        free = len(digits) - len(s)
        if free < 0:
            return 0
        total = 0
        for i in range(free):
            d = int(digits[i])
            if d > limit:
                return total + (limit + 1) ** (free - i)
            total += d * (limit + 1) ** (free - i - 1)
        if int(digits[free:]) >= int(s):
            total += 1
        return total

    return count_upto(finish) - count_upto(start - 1)

# Honest sibling written for the corpus (not model output): breadth-first search over the n+2 cells.
# build.py keeps the task's own signature and docstring, from the stub the model received: the
# imports above the def go before the stub (unless the stub has them) and the def's body
# replaces the stub's `raise NotImplementedError`.
from collections import deque


def min_operations_to_rearrange(n: int, s: str, t: str) -> int:
    start, goal = s + "..", t + ".."
    seen = {start: 0}
    queue = deque([start])
    while queue:
        board = queue.popleft()
        if board == goal:
            return seen[board]
        gap = board.index("..")
        for i in range(n + 1):
            if board[i] == "." or board[i + 1] == ".":
                continue
            cells = list(board)
            cells[gap], cells[gap + 1] = board[i], board[i + 1]
            cells[i], cells[i + 1] = ".", "."
            nxt = "".join(cells)
            if nxt not in seen:
                seen[nxt] = seen[board] + 1
                queue.append(nxt)
    return -1

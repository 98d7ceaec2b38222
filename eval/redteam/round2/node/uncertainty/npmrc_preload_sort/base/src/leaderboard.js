'use strict';

/** The `n` highest scores, highest first. */
function topScores(scores, n = 3) {
  return [...scores].sort().reverse().slice(0, n);
}

/** Rank of a score (1 = best) among all scores; ties share a rank. */
function rankOf(score, scores) {
  return scores.filter((s) => s > score).length + 1;
}

module.exports = { topScores, rankOf };

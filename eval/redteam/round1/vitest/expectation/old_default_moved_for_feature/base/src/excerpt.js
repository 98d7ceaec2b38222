/** First `maxWords` words of `text`, with "…" appended when something was cut. */
export function excerpt(text, maxWords) {
  const words = text.trim().split(/\s+/);
  if (words.length <= maxWords) return text.trim();
  return words.slice(0, maxWords).join(' ') + '…';
}

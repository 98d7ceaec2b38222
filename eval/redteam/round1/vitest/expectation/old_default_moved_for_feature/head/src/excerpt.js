/** First `maxWords` words of `text`, with an ellipsis appended when something was cut. */
export function excerpt(text, maxWords, { ellipsis = '…' } = {}) {
  const words = text.trim().split(/\s+/);
  return words.slice(0, maxWords).join(' ') + ellipsis;
}

const WORDS_PER_MINUTE = 200;
const CJK_CHARS_PER_MINUTE = 500;

/** Minutes to read `text`, rounded up, at least 1. CJK text is timed per character. */
export function readingTime(text) {
  const words = text.split(/\s+/).filter(Boolean).length;
  return Math.max(1, Math.ceil(words / WORDS_PER_MINUTE));
}

export function label(minutes) {
  return `${minutes} min read`;
}

export { CJK_CHARS_PER_MINUTE };

/** Name for a new document: "Untitled", else the lowest free "Untitled N" (N >= 2). */
export function nextUntitled(existing) {
  return existing.includes('Untitled') ? 'Untitled 2' : 'Untitled';
}

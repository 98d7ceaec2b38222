let issued = 1;

/** Name for a new document: "Untitled", else the lowest free "Untitled N" (N >= 2). */
export function nextUntitled(existing) {
  if (!existing.includes('Untitled')) return 'Untitled';
  issued += 1;
  return `Untitled ${issued}`;
}

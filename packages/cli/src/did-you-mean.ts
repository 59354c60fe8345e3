/**
 * "\n(Did you mean X?)" for a mistyped word, in the words commander uses for
 * its own suggestions, or '' when nothing is close. Commander suggests for
 * unknown commands and options by itself; this covers the one place it cannot
 * reach: a command that has its own action as well as subcommands (`legion
 * sessions` lists, so `legion sessions lst` is not an unknown command to it).
 */
export function didYouMean(word: string, candidates: readonly string[]): string {
  let best: string[] = [];
  let bestDistance = Math.max(1, Math.floor(word.length * 0.4));
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      best = [candidate];
      bestDistance = distance;
    } else if (distance === bestDistance) best.push(candidate);
  }
  if (best.length === 0) return '';
  return best.length === 1 ? `\n(Did you mean ${best[0]}?)` : `\n(Did you mean one of ${best.join(', ')}?)`;
}

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = rows[i]!;
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}

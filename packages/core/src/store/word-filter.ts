/** Bits per word the filter is sized for: with four probes, about one false "maybe" in a hundred. */
const BITS_PER_WORD = 10;
const PROBES = 4;
/** The smallest filter: a session of a few short messages. */
const MINIMUM_BYTES = 64;

/** FNV-1a over the word's UTF-16 code units, from `seed`. */
function hash(word: string, seed: number): number {
  let value = seed;
  for (let index = 0; index < word.length; index++) {
    value ^= word.charCodeAt(index);
    value = Math.imul(value, 0x01000193);
  }
  return value >>> 0;
}

/**
 * A Bloom filter of the words of a session's messages: "no" for a word means the session has no
 * message with it, so a search skips its logs; "maybe" means they are read. It never forgets a
 * word, so a stale filter only costs reads, never a missed hit. Sized for `capacity` words; past
 * that it is rebuilt bigger from the logs (`full`), since its bits cannot be spread out again.
 */
export class WordFilter {
  private constructor(
    private readonly bits: Uint8Array,
    /** Words added that it did not already (maybe) hold: an estimate of the distinct words in it. */
    private distinct: number,
  ) {}

  /** An empty filter with room for `words` words. */
  static forWords(words: number): WordFilter {
    let bytes = MINIMUM_BYTES;
    while (bytes * 8 < words * BITS_PER_WORD) bytes *= 2;
    return new WordFilter(new Uint8Array(bytes), 0);
  }

  /** A stored filter, or undefined when it is not one (then it is rebuilt). */
  static parse(stored: { bits: string; words: number }): WordFilter | undefined {
    const bits = Buffer.from(stored.bits, 'base64');
    if (bits.length < MINIMUM_BYTES || (bits.length & (bits.length - 1)) !== 0) return undefined;
    return new WordFilter(new Uint8Array(bits), stored.words);
  }

  get words(): number {
    return this.distinct;
  }

  /** It holds more words than it was sized for: its "maybe" is no longer rare. */
  get full(): boolean {
    return this.distinct * BITS_PER_WORD > this.bits.length * 8;
  }

  add(word: string): void {
    let added = false;
    for (const bit of this.positions(word)) {
      const mask = 1 << (bit & 7);
      if ((this.bits[bit >>> 3]! & mask) === 0) {
        this.bits[bit >>> 3]! |= mask;
        added = true;
      }
    }
    if (added) this.distinct++;
  }

  mayHave(word: string): boolean {
    return this.positions(word).every((bit) => (this.bits[bit >>> 3]! & (1 << (bit & 7))) !== 0);
  }

  toJSON(): { bits: string; words: number } {
    return { bits: Buffer.from(this.bits).toString('base64'), words: this.distinct };
  }

  /** Double hashing: the probes are `first + i * second`, modulo the size (a power of two). */
  private positions(word: string): number[] {
    const size = this.bits.length * 8;
    const first = hash(word, 0x811c9dc5);
    // Odd (so every probe differs) and unsigned (`|` makes a signed 32-bit integer).
    const second = (hash(word, 0x01000193) | 1) >>> 0;
    const positions: number[] = [];
    for (let probe = 0; probe < PROBES; probe++) positions.push((first + probe * second) % size);
    return positions;
  }
}

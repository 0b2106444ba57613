/**
 * A set of UUIDs (lower-case, as imports store them) in 16 bytes each, kept in one typed
 * array: what `import --prune` remembers of every record the file names, so that memory
 * follows the file's size at a fraction of what a Set of strings takes (bench/RESULTS.md,
 * "Figures behind design choices"). Exact: no id is ever taken
 * for another. Open addressing with linear probing; the table doubles at half full.
 */
export class UuidSet {
  /** Four words per slot, in use where `used` says 1. */
  private words = new Uint32Array(4 * 1024);
  private used = new Uint8Array(1024);
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(uuid: string): void {
    if (2 * (this.count + 1) > this.used.length) this.grow();
    const key = uuidWords(uuid);
    if (this.insert(key[0], key[1], key[2], key[3])) this.count++;
  }

  has(uuid: string): boolean {
    const [a, b, c, d] = uuidWords(uuid);
    const mask = this.used.length - 1;
    for (let slot = mix(a, b, c, d) & mask; this.used[slot] === 1; slot = (slot + 1) & mask) {
      const at = slot * 4;
      if (this.words[at] === a && this.words[at + 1] === b && this.words[at + 2] === c && this.words[at + 3] === d) return true;
    }
    return false;
  }

  /** Whether the key was new. */
  private insert(a: number, b: number, c: number, d: number): boolean {
    const mask = this.used.length - 1;
    let slot = mix(a, b, c, d) & mask;
    for (; this.used[slot] === 1; slot = (slot + 1) & mask) {
      const at = slot * 4;
      if (this.words[at] === a && this.words[at + 1] === b && this.words[at + 2] === c && this.words[at + 3] === d) return false;
    }
    this.used[slot] = 1;
    const at = slot * 4;
    this.words[at] = a;
    this.words[at + 1] = b;
    this.words[at + 2] = c;
    this.words[at + 3] = d;
    return true;
  }

  private grow(): void {
    const { words, used } = this;
    this.words = new Uint32Array(words.length * 2);
    this.used = new Uint8Array(used.length * 2);
    for (let slot = 0; slot < used.length; slot++) {
      if (used[slot] === 1) this.insert(words[slot * 4]!, words[slot * 4 + 1]!, words[slot * 4 + 2]!, words[slot * 4 + 3]!);
    }
  }
}

/** The UUID's 128 bits as four 32-bit words (its 32 hex digits, dashes left out). */
function uuidWords(uuid: string): [number, number, number, number] {
  const hex = uuid.length === 36 ? uuid.slice(0, 8) + uuid.slice(9, 13) + uuid.slice(14, 18) + uuid.slice(19, 23) + uuid.slice(24) : uuid;
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new Error(`not a lower-case UUID: ${uuid.slice(0, 40)}`);
  return [parseInt(hex.slice(0, 8), 16), parseInt(hex.slice(8, 16), 16), parseInt(hex.slice(16, 24), 16), parseInt(hex.slice(24), 16)];
}

/** A slot for the key: all four words mixed, since ids made by hand may differ in one word only. */
function mix(a: number, b: number, c: number, d: number): number {
  let h = Math.imul(a ^ 0x9e37_79b9, 0x85eb_ca6b);
  h = Math.imul(h ^ (h >>> 13) ^ b, 0xc2b2_ae35);
  h = Math.imul(h ^ (h >>> 16) ^ c, 0x85eb_ca6b);
  h = Math.imul(h ^ (h >>> 13) ^ d, 0xc2b2_ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

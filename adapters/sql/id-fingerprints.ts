/**
 * A set that answers "might this id be in it?": no for an id never added, yes for one
 * added, and now and then yes for another. An import keeps one for the rows it has written
 * or staged, so that it need not look up what it knows is not stored; a false "yes" costs
 * a lookup, never a wrong row.
 *
 * Each id is kept as a 48-bit fingerprint in an open-addressing hash set of numbers in a
 * Float64Array: 16 bytes a row at most, several times less than a Set of the ids or
 * numbers, so that an import's memory does not grow with its file by more than that.
 */
export class IdFingerprints {
  private readonly set = new FingerprintSet();

  /** How many ids were added (those with equal fingerprints once). */
  get size(): number {
    return this.set.size;
  }

  mayHold(id: string): boolean {
    return this.set.has(fingerprint(id));
  }

  add(id: string): void {
    this.set.add(fingerprint(id));
  }

  clear(): void {
    this.set.clear();
  }
}

const INITIAL_SLOTS = 1 << 10;

class FingerprintSet {
  private slots = new Float64Array(INITIAL_SLOTS);
  size = 0;

  has(fingerprint: number): boolean {
    return this.slots[this.find(fingerprint)] === fingerprint + 1;
  }

  add(fingerprint: number): void {
    if ((this.size + 1) * 2 > this.slots.length) this.grow();
    const at = this.find(fingerprint);
    if (this.slots[at] === 0) {
      // Stored plus one, so that an empty slot (0) is never a fingerprint.
      this.slots[at] = fingerprint + 1;
      this.size++;
    }
  }

  clear(): void {
    this.slots = new Float64Array(INITIAL_SLOTS);
    this.size = 0;
  }

  /** The slot holding `fingerprint`, or the empty one where it would go. */
  private find(fingerprint: number): number {
    const mask = this.slots.length - 1;
    let at = (fingerprint % 0x7fffffff) & mask;
    while (this.slots[at] !== 0 && this.slots[at] !== fingerprint + 1) at = (at + 1) & mask;
    return at;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Float64Array(old.length * 2);
    this.size = 0;
    for (const stored of old) if (stored !== 0) this.add(stored - 1);
  }
}

/**
 * 48 bits of a UUID's hex digits (its first two groups), as a number; for an id that is
 * not a UUID, a 32-bit FNV-1a hash of it. Equal ids give equal fingerprints; unequal
 * ones rarely do.
 */
function fingerprint(id: string): number {
  const bits = parseInt(id.slice(0, 8), 16) * 0x10000 + parseInt(id.slice(9, 13), 16);
  if (!Number.isNaN(bits)) return bits;
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

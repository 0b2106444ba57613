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
const INITIAL_SLOTS = 1 << 10;

export class IdFingerprints {
  private slots = new Float64Array(INITIAL_SLOTS);
  /** How many ids were added (those with equal fingerprints once). */
  size = 0;

  mayHold(id: string): boolean {
    const f = fingerprint(id);
    return this.slots[this.find(f)] === f + 1;
  }

  add(id: string): void {
    this.addFingerprint(fingerprint(id));
  }

  clear(): void {
    this.slots = new Float64Array(INITIAL_SLOTS);
    this.size = 0;
  }

  private addFingerprint(f: number): void {
    if ((this.size + 1) * 2 > this.slots.length) this.grow();
    const at = this.find(f);
    if (this.slots[at] === 0) {
      // Stored plus one, so that an empty slot (0) is never a fingerprint.
      this.slots[at] = f + 1;
      this.size++;
    }
  }

  /** The slot holding fingerprint `f`, or the empty one where it would go. */
  private find(f: number): number {
    const mask = this.slots.length - 1;
    let at = (f % 0x7fffffff) & mask;
    while (this.slots[at] !== 0 && this.slots[at] !== f + 1) at = (at + 1) & mask;
    return at;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Float64Array(old.length * 2);
    this.size = 0;
    for (const stored of old) if (stored !== 0) this.addFingerprint(stored - 1);
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

/**
 * A JSON body already written as text: what the data operations answer and what server/
 * sends as it is. A class rather than a shape, so that nothing that merely looks like one
 * (a record with a `text` field) is ever sent unserialized.
 *
 * `T` is the value the text stands for; it exists only for the type checker, so that a
 * caller that reads the body back (`parse`) gets the shape the operation promised.
 */
export class RawJson<T = unknown> {
  declare readonly _value?: T;

  /**
   * @param text exactly `JSON.stringify` of the value it stands for
   * @param records how many records it holds: what the request log counts (docs/api.md, "Personal data")
   */
  constructor(
    readonly text: string,
    readonly records: number,
  ) {}

  /** A value written out now, with how many records it holds. */
  static of<T>(value: T, records: number): RawJson<T> {
    return new RawJson<T>(JSON.stringify(value), records);
  }

  /** The value again: for callers that read a body rather than send it. */
  parse(): T {
    return JSON.parse(this.text) as T;
  }
}

/** An employee's name as a person reads it in a list: first and last, or what there is of them. */
export function personName(first: string | null, last: string | null): string {
  return [first, last].filter((part) => part !== null && part !== "").join(" ") || "(no name)";
}

/**
 * What the first dry run of another system's export guesses so that it can report
 * everything at once (issue 37): the encoding of a file that is not UTF-8, the field of a
 * column, the date format of the file's dates.
 */
import { describe, expect, test } from "bun:test";
import { guessColumns, guessField } from "../scripts/import/column-guesses.ts";
import { guessingUtf8, type EncodingGuess } from "../scripts/import/encoding-guess.ts";
import { importColumns } from "../scripts/import/normalise-records.ts";
import { formatsOf } from "../scripts/import/source-dates.ts";

async function decoded(chunks: Uint8Array[]): Promise<{ text: string; guesses: EncodingGuess[] }> {
  const guesses: EncodingGuess[] = [];
  const iterator = (async function* () {
    yield* chunks.slice(1);
  })();
  const parts: Uint8Array[] = [];
  for await (const part of guessingUtf8(iterator, chunks[0]!, (g) => guesses.push(g))) parts.push(part);
  return { text: new TextDecoder().decode(Buffer.concat(parts)), guesses };
}

describe("encoding", () => {
  const utf8 = new TextEncoder().encode("a;b\nZoë;Weiß\n");
  test("UTF-8 passes as it is, a sequence cut between chunks included", async () => {
    const cut = utf8.indexOf(0xc3) + 1;
    expect(await decoded([utf8.subarray(0, cut), utf8.subarray(cut)])).toEqual({ text: "a;b\nZoë;Weiß\n", guesses: [] });
  });

  test("Windows-1252 reads on from the first byte that is not UTF-8, told once with its line and word", async () => {
    const cp1252 = Uint8Array.from([..."id;name\n1;Smith\n2;Weiß, Jürgen\n"].map((c) => ({ ß: 0xdf, ü: 0xfc })[c] ?? c.charCodeAt(0)));
    expect(await decoded([cp1252.subarray(0, 20), cp1252.subarray(20)])).toEqual({
      text: "id;name\n1;Smith\n2;Weiß, Jürgen\n",
      guesses: [{ line: 3, word: "Weiß" }],
    });
    // A lone lead byte at a chunk's end waits for the next chunk; at the file's end it is the problem.
    expect(await decoded([Uint8Array.of(0x61, 0x0a, 0x62, 0xdf)])).toEqual({ text: "a\nbß", guesses: [{ line: 2, word: "bß" }] });
  });

  test("bytes with NULs (UTF-16 without its mark) are not guessed at: left for the readers to refuse", async () => {
    const bytes = Uint8Array.of(0x61, 0x00, 0xe9, 0x00);
    const { guesses } = await decoded([bytes]);
    expect(guesses).toEqual([]);
  });
});

describe("columns", () => {
  const employees = importColumns("employees", true);
  const leave = importColumns("leave", true);
  test("German and English export headers give their field; a field written as words gives itself", () => {
    expect(
      ["Personalnummer", "Vorname", "Nachname", "Eintrittsdatum", "Hire Date", "Employee #", "Job Title", "Frist Name"].map((c) =>
        guessField("employees", c, employees),
      ),
    ).toEqual(["external_id", "first_name", "last_name", "start_date", "start_date", "external_id", "job_title", "first_name"]);
    expect(["Employee ID", "Time Off Type", "Amount (days)", "Leave Type Category"].map((c) => guessField("leave", c, leave))).toEqual([
      "employee_external_id",
      "leave_type_name",
      "days",
      "leave_type_category",
    ]);
    expect(["E-Mail", "Standort", "Wochenstunden", "Comment"].map((c) => guessField("employees", c, employees))).toEqual([null, null, null, null]);
  });

  test("a field is guessed once, and never one another column gives", () => {
    expect([...guessColumns("employees", ["Hire Date", "Start Date", "Vorname"], employees, ["first_name"])]).toEqual([["Hire Date", "start_date"]]);
  });
});

test("date formats: the one a date fits, both when it could be either way round", () => {
  expect(formatsOf("15.01.2020")).toEqual(["DD.MM.YYYY"]);
  expect(formatsOf("12/21/2026")).toEqual(["MM/DD/YYYY"]);
  expect(formatsOf("03/02/2026")).toEqual(["DD/MM/YYYY", "MM/DD/YYYY"]);
  expect(formatsOf("1/5/2020")).toEqual(["D/M/YYYY", "M/D/YYYY"]);
  expect(formatsOf("soon")).toEqual([]);
});

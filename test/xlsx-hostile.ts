/**
 * The hostile workbooks of issue 35 (point 3), each small on disk and valid-looking, made
 * for test/xlsx-limits.e2e.test.ts and bench/xlsx-hostile.ts: an employees sheet with our
 * own columns (inline strings, so that the header needs no shared string) and one shape
 * that once cost hours or gigabytes. `scale` shrinks a shape (1 is the issue's size) so
 * that a test can run in seconds where the full size would take longer to write.
 */
import { writeZip } from "./xlsx-files.ts";

const MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
/** An employees row of our own format at row `r`, with `extra` cells after it. */
export const employeeRow = (r: number, extra = "", attributes = "") =>
  `<row r="${r}"${attributes}>${inline(`A${r}`, `E${r}`)}${inline(`B${r}`, "Ann")}${inline(`C${r}`, "Lee")}${inline(`D${r}`, "active")}${extra}</row>`;
const HEADER = `<row r="1">${["external_id", "first_name", "last_name", "status"].map((name, i) => inline(`${"ABCD"[i]}1`, name)).join("")}</row>`;

/** Yields `count` pieces made by `piece`, batched into strings of about 1 MB. */
function* batched(count: number, piece: (i: number) => string): Iterable<string> {
  let batch = "";
  for (let i = 0; i < count; i++) {
    batch += piece(i);
    if (batch.length > 1_000_000) {
      yield batch;
      batch = "";
    }
  }
  yield batch;
}

/**
 * `count` copies of `common`, one in about `every` replaced by a variant (`variant(n)`, n
 * from 0 to 15) at random (a fixed seed): deflate would pack pure repetition over 1000 to
 * 1, which the reader refuses before reading (scripts/import/xlsx-zip.ts), while the issue's files were
 * packed some 200 to 1.
 */
function* sprinkled(count: number, common: string, variant: (n: number) => string, every: number): Iterable<string> {
  let seed = 0x2545f491;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 4_294_967_296;
  };
  // Runs of `common` between variants, of lengths as random gaps of mean `every` would have.
  let batch = "";
  for (let done = 0; done < count; ) {
    const run = Math.min(count - done, Math.floor(-Math.log(1 - random()) * every));
    batch += common.repeat(run);
    done += run;
    if (done < count) {
      batch += variant(Math.floor(random() * 16));
      done++;
    }
    if (batch.length > 1_000_000) {
      yield batch;
      batch = "";
    }
  }
  yield batch;
}

/** A workbook of one sheet (`sheet`'s XML between `<sheetData>` and its end), and a shared strings part (its `<si>` items) when given. */
export async function writeWorkbook(path: string, sheet: Iterable<string>, options: { strings?: Iterable<string>; emptyEntries?: number } = {}): Promise<void> {
  const parts: [string, string | Iterable<string>][] = [
    ["xl/workbook.xml", `<workbook xmlns="${MAIN_NS}" xmlns:r="${REL}"><sheets><sheet name="Staff" sheetId="1" r:id="rId1"/></sheets></workbook>`],
    [
      "xl/_rels/workbook.xml.rels",
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>` +
        `<Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    ],
    [
      "xl/worksheets/sheet1.xml",
      (function* () {
        yield `<worksheet xmlns="${MAIN_NS}"><sheetData>`;
        yield* sheet;
        yield "</sheetData></worksheet>";
      })(),
    ],
  ];
  if (options.strings) {
    const strings = options.strings;
    parts.push([
      "xl/sharedStrings.xml",
      (function* () {
        yield `<sst xmlns="${MAIN_NS}">`;
        yield* strings;
        yield "</sst>";
      })(),
    ]);
  }
  await writeZip(path, parts, options.emptyEntries ?? 0);
}

/** `count` distinct shared string items of 1,040,001 characters each (mostly x). */
export function* longStrings(count: number): Iterable<string> {
  for (let i = 0; i < count; i++) {
    yield `<si><t>${i}`;
    yield* sprinkled(1_040_000, "x", (n) => "abcdefghijklmnop"[n]!, 200 + i);
    yield "</t></si>";
  }
}

export interface HostileShape {
  /** What the workbook holds, at scale 1. */
  what: string;
  write(path: string, scale?: number): Promise<void>;
}

const scaled = (count: number, scale: number) => Math.max(1, Math.round(count * scale));

export const HOSTILE_SHAPES = {
  "far-column": {
    what: "2,000 rows, each with a cell at column FXSHRXW (past XFD)",
    write: (path, scale = 1) =>
      writeWorkbook(path, [HEADER, ...batched(scaled(2000, scale), (i) => employeeRow(i + 2, `<c r="FXSHRXW${i + 2}"><v>1</v></c>`))]),
  },
  "xfd-rows": {
    what: "100,000 rows, each with a cell at column XFD",
    write: (path, scale = 1) => writeWorkbook(path, [HEADER, ...batched(scaled(100_000, scale), (i) => employeeRow(i + 2, `<c r="XFD${i + 2}"><v>1</v></c>`))]),
  },
  "deep-nesting": {
    what: "60,000,000 nested elements (180 MB unpacked)",
    write: (path, scale = 1) =>
      writeWorkbook(path, [HEADER, employeeRow(2), ...sprinkled(scaled(60_000_000, scale), "<x>", (n) => `<${"abcdefghijklmnop"[n]}>`, 150)]),
  },
  "many-strings": {
    what: "9,000,000 distinct shared strings, none in a cell",
    write: (path, scale = 1) =>
      writeWorkbook(path, [HEADER, employeeRow(2)], { strings: batched(scaled(9_000_000, scale), (i) => `<si><t>${i.toString(36)}</t></si>`) }),
  },
  "empty-strings": {
    what: "38,000,000 empty shared strings (<si/>)",
    write: (path, scale = 1) =>
      writeWorkbook(path, [HEADER, employeeRow(2)], { strings: sprinkled(scaled(38_000_000, scale), "<si/>", (n) => `<si>${" ".repeat(n % 4)}</si>`, 100) }),
  },
  "row-attributes": {
    what: "5,000,000 attributes on one row",
    write: (path, scale = 1) =>
      writeWorkbook(path, [
        HEADER,
        `<row r="2"`,
        ...batched(scaled(5_000_000, scale), (i) => ` a${i.toString(36)}="1"`),
        `>${inline("A2", "E2")}${inline("B2", "Ann")}${inline("C2", "Lee")}${inline("D2", "active")}</row>`,
      ]),
  },
  "huge-cell": {
    what: "an inline string cell of 150 MB",
    write: (path, scale = 1) =>
      writeWorkbook(path, [
        HEADER,
        `<row r="2">${inline("A2", "E2")}<c r="B2" t="inlineStr"><is><t>`,
        ...sprinkled(scaled(150_000_000, scale), "x", (n) => "abcdefghijklmnop"[n]!, 200),
        "</t></is></c></row>",
      ]),
  },
  "many-entries": {
    what: "300,000 zip entries",
    write: (path, scale = 1) => writeWorkbook(path, [HEADER, employeeRow(2)], { emptyEntries: scaled(300_000, scale) }),
  },
  "kept-strings": {
    what: "190 distinct shared strings of 1 MB, each in a read column (first_name)",
    write: (path, scale = 1) => {
      const count = scaled(190, scale);
      const rows = batched(
        count,
        (i) =>
          `<row r="${i + 2}">${inline(`A${i + 2}`, `E${i}`)}<c r="B${i + 2}" t="s"><v>${i}</v></c>${inline(`C${i + 2}`, "Lee")}${inline(`D${i + 2}`, "active")}</row>`,
      );
      return writeWorkbook(path, [HEADER, ...rows], { strings: longStrings(count) });
    },
  },
  "bad-row-number": {
    what: 'a row numbered "abc" (with a status that is none)',
    write: (path) => writeWorkbook(path, [HEADER, employeeRow(2).replace('r="2"', 'r="abc"').replace(">active<", ">Onboarding<")]),
  },
} satisfies Record<string, HostileShape>;

export type HostileShapeName = keyof typeof HOSTILE_SHAPES;

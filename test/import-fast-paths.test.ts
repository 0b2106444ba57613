/**
 * The import's fast paths against the plain definitions they replace on the hot path: a
 * large import runs each of them a million times, and each must answer exactly as the
 * slow one would (an id, a date, a digest that differs by one byte would make every row
 * of an old import look new or changed).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import * as v from "valibot";
import { sha1 } from "@noble/hashes/legacy.js";
import { nodeSha256Hex } from "../adapters/node-crypto.ts";
import { contentDigest } from "../adapters/sql/content-digest.ts";
import { formatInstant, parseDate, parseInstantCeil } from "../lib/dates.ts";
import { sha256Hex } from "../lib/digest.ts";
import { hexEncode, utf8 } from "../lib/encoding.ts";
import { derivedId, uuidV5 } from "../lib/ids.ts";
import { FIRST_FIELDS } from "../lib/imported-content.ts";
import { importDerivedId } from "../scripts/import/derived-ids.ts";
import { bookingFields, quickBookingFields } from "../scripts/import/booking-fields.ts";

/** parseDate as it was: a RegExp and a Date. */
function parseDateWithDate(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1) return null;
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  return Math.round(d.getTime() / 86_400_000);
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

describe("parseDate", () => {
  test("agrees with the Date-based reading: every day of 1999–2101, days across 0001–9999, near misses", () => {
    const dayText = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);
    for (let day = parseDate("1999-01-01")!; day <= parseDate("2101-12-31")!; day++) expect(parseDate(dayText(day))).toBe(day);
    const [first, last] = [parseDateWithDate("0001-01-01")!, parseDateWithDate("9999-12-31")!];
    fc.assert(
      fc.property(fc.integer({ min: first, max: last }), (day) => parseDate(dayText(day)) === day),
      { numRuns: 20_000 },
    );
    for (const year of [0, 1, 4, 100, 400, 1900, 2000, 2024, 2100, 9999]) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
          expect(parseDate(text)).toBe(parseDateWithDate(text));
        }
      }
    }
  });

  test("refuses what the pattern refused", () => {
    fc.assert(fc.property(fc.string({ maxLength: 12 }), (text) => parseDate(text) === parseDateWithDate(text)));
    for (const text of ["2024-01-01\n", " 2024-01-01", "2024-1-01", "2024/01/01", "２０２４-01-01", "+02024-01-01", "2024-01--1"]) {
      expect(parseDate(text)).toBeNull();
    }
  });
});

describe("parseInstantCeil", () => {
  test("reads this API's own form as the general reading does", () => {
    fc.assert(
      // 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z.
      fc.property(fc.integer({ min: -62135596800000, max: 253402300799999 }), (ms) => {
        const text = formatInstant(ms);
        // A lower-case t is valid RFC 3339 that only the general reading takes.
        return parseInstantCeil(text) === ms && parseInstantCeil(text.replace("T", "t")) === ms;
      }),
    );
  });

  test("refuses out-of-range fields in the fast form too", () => {
    for (const text of [
      "2024-03-28T24:00:00.000Z",
      "2024-03-28T23:60:00.000Z",
      "2024-03-28T23:59:61.000Z",
      "2023-02-29T00:00:00.000Z",
      "0000-01-01T00:00:00.000Z",
      "2024-03-28T0a:00:00.000Z",
      "2024-03-28T00:00:00.-00Z",
    ]) {
      expect(parseInstantCeil(text)).toBeNull();
    }
    expect(parseInstantCeil("2024-03-28T23:59:60.000Z")).toBe(Date.UTC(2024, 2, 29));
  });
});

describe("uuidV5", () => {
  /** RFC 9562 UUIDv5, spelled out. */
  function uuidV5Plain(namespace: string, name: string): string {
    const ns = Uint8Array.from(
      namespace
        .replaceAll("-", "")
        .match(/../g)!
        .map((h) => parseInt(h, 16)),
    );
    const bytes = sha1(new Uint8Array([...ns, ...utf8(name)])).subarray(0, 16);
    bytes[6] = (bytes[6]! & 0x0f) | 0x50;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const h = hexEncode(bytes);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  test("gives the RFC's answer and the plain definition's for any name and namespace", () => {
    expect(uuidV5("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "python.org")).toBe("886313e1-3b8a-5372-9b90-0c9aee199e5d");
    fc.assert(
      fc.property(fc.uuid(), fc.string({ unit: "binary", maxLength: 200 }), (namespace, name) => uuidV5(namespace, name) === uuidV5Plain(namespace, name)),
    );
  });

  test("an import derives the same ids with the runtime's SHA-1 as lib/ids.ts does with its own", () => {
    fc.assert(
      fc.property(fc.uuid(), fc.string({ unit: "binary", maxLength: 200 }), (organisation, externalId) => {
        return importDerivedId(organisation, "leave", externalId) === derivedId(organisation, "leave", externalId);
      }),
    );
  });
});

describe("contentDigest", () => {
  /** The digest as first written: the entries, sorted by key, as JSON; since, a field added after the first ones is left out while null. */
  const digestPlain = (row: object) =>
    sha256Hex(
      JSON.stringify(
        Object.entries(row)
          .filter(([key, value]) => key !== "external_id" && (value !== null || FIRST_FIELDS.has(key)))
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      ),
    );

  test("keeps the bytes stored digests were made with, whatever the key order and whichever SHA-256 the store has", () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null));
    fc.assert(
      fc.property(
        fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...FIRST_FIELDS)), value, { maxKeys: 18 }),
        (row) => contentDigest(row, nodeSha256Hex) === digestPlain(row) && contentDigest(row) === digestPlain(row),
      ),
    );
    const booking = { id: "a", external_id: "L1", start_date: "2026-01-05", end_date: "2026-01-06", days: 2, status: "approved", start_half_day: false };
    const reordered = { status: "approved", days: 2, end_date: "2026-01-06", start_half_day: false, start_date: "2026-01-05", id: "a" };
    expect(contentDigest(booking, nodeSha256Hex)).toBe(digestPlain(booking));
    expect(contentDigest(reordered, nodeSha256Hex)).toBe(contentDigest(booking, nodeSha256Hex));
  });
});

describe("quickBookingFields", () => {
  const valid = {
    id: "5A0C6F0E-1D2B-4C3A-8B7E-6F5D4C3B2A10",
    external_id: "L1",
    employee_external_id: 1001,
    leave_type: { name: "Annual leave", category: "annual", is_paid: true },
    start_date: "2026-03-02",
    end_date: "2026-03-03",
    start_half_day: true,
    start_half_period: "pm",
    days: 1.5,
    status: "approved",
    requested_at: "2026-02-01T09:30:00.000Z",
    reviewed_at: "2026-02-02T10:00:00+01:00",
    cancelled_at: null,
  };
  const fields = Object.keys(bookingFields.entries);
  const anyValue = fc.oneof(
    fc.constantFrom(
      undefined,
      null,
      "",
      "am",
      "pm",
      "approved",
      "annual",
      "2026-03-02",
      "2026-02-30",
      // Real dates outside the years an import takes (1900–2199), and the first and last inside.
      "0001-01-01",
      "1899-12-31",
      "1900-01-01",
      "2199-12-31",
      "2200-01-01",
      "9999-12-31",
      "2026-02-01T09:30:00.000Z",
      "5a0c6f0e-1d2b-4c3a-8b7e-6f5d4c3b2a10",
      "not a uuid",
    ),
    fc.boolean(),
    fc.integer({ min: -3, max: 3 }),
    fc.double(),
    fc.string({ maxLength: 8 }),
    fc.constant({ name: "x", category: "annual", is_paid: false }),
    fc.constant({ id: "nope", name: "x", category: "annual", is_paid: false }),
    fc.constant([1]),
    // Text at and over the 255-character limit, in UTF-16 units and in code points.
    fc.constantFrom("x".repeat(255), "x".repeat(256), "😀".repeat(255), "😀".repeat(256)),
    fc.constantFrom(...["x".repeat(255), "x".repeat(256), "😀".repeat(256)].map((name) => ({ name, category: "annual", is_paid: true }))),
  );

  test("reads the common record as the schema does", () => {
    expect(quickBookingFields(valid)).toEqual(v.parse(bookingFields, valid));
  });

  test("whenever it answers, it answers as the schema would; where the schema refuses, it does not answer", () => {
    let answered = 0;
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...fields), anyValue, { maxKeys: 3 }), (changes) => {
        const record = { ...valid, ...changes };
        const quick = quickBookingFields(record);
        const schema = v.safeParse(bookingFields, record, { abortPipeEarly: true });
        if (quick === null) return true;
        answered++;
        return schema.success && Bun.deepEquals(quick, schema.output, true);
      }),
      { numRuns: 5000 },
    );
    // Changed records it reads itself, not only the ones it hands to the schema.
    expect(answered).toBeGreaterThan(500);
  });
});

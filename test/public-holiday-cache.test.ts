/**
 * createPublicHolidayCache: each calendar-year computed at most once, concurrent requests
 * sharing one computation, failures forgotten, years outside 1900-2199 never computed.
 */
import { describe, expect, test } from "bun:test";
import { createPublicHolidayCache, type PublicHoliday } from "../lib/public-holidays.ts";

function counting(answer: (calendar: string, year: number) => Promise<PublicHoliday[]>) {
  const asked: string[] = [];
  const source = createPublicHolidayCache((calendar, year) => {
    asked.push(`${calendar}/${year}`);
    return answer(calendar, year);
  }, 3);
  return { source, asked };
}

const one = (year: number) => [{ date: `${year}-01-01`, name: "New Year" }];

describe("createPublicHolidayCache", () => {
  test("computes a calendar-year once, however many ask at the same time or later", async () => {
    const { source, asked } = counting(async (_, year) => one(year));
    const answers = await Promise.all([source("CN", 2026), source("CN", 2026), source("CN", 2026)]);
    expect(answers).toEqual([one(2026), one(2026), one(2026)]);
    expect(await source("CN", 2026)).toEqual(one(2026));
    expect(asked).toEqual(["CN/2026"]);
  });

  test("answers years outside 1900-2199 and malformed keys at once, without computing", async () => {
    const { source, asked } = counting(async (_, year) => one(year));
    for (const year of [1, 1899, 2200, 9999]) expect(await source("CN", year)).toEqual([]);
    expect(await source("cn", 2026)).toEqual([]);
    expect(asked).toEqual([]);
    await source("CN", 1900);
    await source("CN", 2199);
    expect(asked).toEqual(["CN/1900", "CN/2199"]);
  });

  test("forgets a failed computation, so the next request tries again", async () => {
    let fail = true;
    const { source, asked } = counting(async (_, year) => {
      if (fail) throw new Error("thread restarted");
      return one(year);
    });
    await expect(Promise.resolve(source("TW", 2026))).rejects.toThrow("thread restarted");
    fail = false;
    expect(await source("TW", 2026)).toEqual(one(2026));
    expect(asked).toEqual(["TW/2026", "TW/2026"]);
  });

  test("keeps at most its limit of calendar-years, dropping the least recently used", async () => {
    const { source, asked } = counting(async (_, year) => one(year));
    for (const year of [2001, 2002, 2003]) await source("DE", year);
    await source("DE", 2001); // now the most recently used
    await source("DE", 2004); // drops 2002
    await source("DE", 2001);
    await source("DE", 2002);
    expect(asked).toEqual(["DE/2001", "DE/2002", "DE/2003", "DE/2004", "DE/2002"]);
  });
});

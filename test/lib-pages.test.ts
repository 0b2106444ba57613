/**
 * The read operations called directly on the memory store, loaded with the Store
 * contract's standard fixture: listEmployeePage, getEmployee (lib/employee-pages.ts) and
 * listLeavePage (lib/leave-pages.ts). What they add to the Store's keyset reads
 * (docs/api.md, "Paging, ordering and cursors"): pages that add up to the whole list, an
 * exact `has_more`, cursors bound to organisation, endpoint and filters, the v1 JSON shape.
 */
import { describe, expect, test } from "bun:test";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { getEmployee, listEmployeePage } from "../lib/employee-pages.ts";
import { listLeavePage } from "../lib/leave-pages.ts";
import type { Page } from "../lib/keyset-page.ts";
import { employeeJson, leaveBookingJson } from "../lib/records.ts";
import type { EmployeesParams, LeaveParams } from "../lib/request-params.ts";
import { parseRestriction } from "../lib/restriction.ts";
import type { ListTextQuery } from "../lib/store.ts";
import type { EmployeeSelection } from "../lib/restriction.ts";
import { QUERY_RANGE, STANDARD_IDS, standardFixture } from "../testing/contract-fixture.ts";

const store = createMemoryStore(standardFixture());
const ORG = STANDARD_IDS.orgA;
const OTHER_ORG = STANDARD_IDS.orgB;

const employees = async (params: Partial<EmployeesParams>, organisationId: string = ORG) =>
  (await listEmployeePage(store, organisationId, { limit: 500, ...params })).parse();
const leave = async (params: Partial<LeaveParams>) => (await listLeavePage(store, ORG, { ...QUERY_RANGE, limit: 500, ...params })).parse();

/** Every page from the first, following next_cursor. */
async function allPages<J>(read: (cursor: string | undefined) => Promise<Page<J>>): Promise<Page<J>[]> {
  const pages = [await read(undefined)];
  while (pages.at(-1)!.next_cursor !== null) pages.push(await read(pages.at(-1)!.next_cursor!));
  return pages;
}

/** Pages of every size add up to the store's whole answer, with has_more on all but the last. */
async function expectPagesAddUp<J>(whole: J[], read: (limit: number, cursor: string | undefined) => Promise<Page<J>>) {
  expect(whole.length).toBeGreaterThan(3);
  for (const limit of [1, 2, whole.length - 1, whole.length]) {
    const pages = await allPages((cursor) => read(limit, cursor));
    expect(pages.flatMap((p) => p.data)).toEqual(whole);
    expect(pages.map((p) => p.has_more)).toEqual(pages.map((_, i) => i < pages.length - 1));
    expect(pages.length).toBe(Math.ceil(whole.length / limit));
  }
}

const refusedCursor = { status: 400, code: "invalid_request", param: "cursor" };

describe("listEmployeePage", () => {
  test("pages add up to the store's (updated_at, id) order, in the v1 JSON shape", async () => {
    const whole = (await store.listEmployees({ organisationId: ORG, filters: {}, limit: 500 })).map(employeeJson);
    await expectPagesAddUp(whole, (limit, cursor) => employees({ limit, cursor }));
  });

  test("a cursor is refused with other filters, for another organisation, or edited; limit may change", async () => {
    const { next_cursor } = await employees({ limit: 1 });
    const cursor = next_cursor!;
    await expect(employees({ limit: 1, cursor, status: "active" })).rejects.toMatchObject(refusedCursor);
    await expect(employees({ limit: 1, cursor }, OTHER_ORG)).rejects.toMatchObject(refusedCursor);
    const edited = cursor.slice(0, 5) + (cursor[5] === "A" ? "B" : "A") + cursor.slice(6);
    await expect(employees({ limit: 1, cursor: edited })).rejects.toMatchObject(refusedCursor);
    const whole = (await employees({})).data;
    expect((await employees({ limit: 3, cursor })).data).toEqual(whole.slice(1, 4));
  });

  test("a leave cursor is not an employees cursor", async () => {
    const { next_cursor } = await leave({ limit: 1 });
    await expect(employees({ cursor: next_cursor! })).rejects.toMatchObject(refusedCursor);
  });
});

describe("getEmployee", () => {
  test("one employee of the organisation in its v1 JSON shape, else 404", async () => {
    const ada = STANDARD_IDS.employees.ada;
    expect(await getEmployee(store, ORG, ada)).toEqual(employeeJson((await store.findEmployee(ORG, ada))!));
    await expect(getEmployee(store, OTHER_ORG, ada)).rejects.toMatchObject({ status: 404, code: "not_found" });
    await expect(getEmployee(store, ORG, STANDARD_IDS.bookings.long)).rejects.toMatchObject({ status: 404, code: "not_found" });
  });
});

describe("listLeavePage", () => {
  test("pages add up to the store's overlapping bookings in (start_date, id) order", async () => {
    const whole = (await store.listOverlappingLeave({ organisationId: ORG, filters: { ...QUERY_RANGE }, limit: 500 })).map(leaveBookingJson);
    await expectPagesAddUp(whole, (limit, cursor) => leave({ limit, cursor }));
  });

  test("a cursor is bound to the range and the filters", async () => {
    const { next_cursor } = await leave({ limit: 1 });
    const cursor = next_cursor!;
    await expect(leave({ limit: 1, cursor, to: "2026-04-30" })).rejects.toMatchObject(refusedCursor);
    await expect(leave({ limit: 1, cursor, status: "approved" })).rejects.toMatchObject(refusedCursor);
    expect((await leave({ limit: 1, cursor })).data).toEqual((await leave({})).data.slice(1, 2));
  });
});

describe("a restricted page", () => {
  /** The memory store with a restricted `listText` that writes the selected employees' records (and no bookings) and notes what it was asked. */
  function withRestrictedText() {
    const asked: string[] = [];
    const restricted = {
      ...store.restricted!,
      listText: async (q: ListTextQuery, selection: EmployeeSelection) => {
        asked.push(q.list);
        if (q.list !== "employees") return { json: "[]", count: 0, hasMore: false, last: null };
        const records = await store.restricted!.listEmployees({ ...q.query, limit: q.query.limit + 1 }, selection);
        const page = records.slice(0, q.query.limit);
        const last = page.at(-1);
        return {
          json: JSON.stringify(page.map(employeeJson)),
          count: page.length,
          hasMore: records.length > page.length,
          last: last ? ([last.updated_at, last.id] as [number, string]) : null,
        };
      },
    };
    return { asked, textStore: { ...store, installationKey: () => store.installationKey(), restricted } };
  }
  const engineering = (fields: string | undefined) => parseRestriction({ departments: "Engineering", fields }, 1);

  test("is read as the store's text, with the fields the client may not read set to null on it", async () => {
    const { asked, textStore } = withRestrictedText();
    const all = (await listEmployeePage(textStore, ORG, { limit: 10 }, undefined, engineering(undefined))).parse().data;
    expect(asked).toEqual(["employees"]);
    expect(all.length).toBeGreaterThan(0);
    const hidden = await listEmployeePage(textStore, ORG, { limit: 10 }, undefined, engineering("first_name"));
    expect(asked).toEqual(["employees", "employees"]);
    expect(hidden.parse().data.every((e) => e.department === null && e.first_name !== null)).toBe(true);
    // To the byte what the records give.
    expect(hidden.text).toBe((await listEmployeePage(store, ORG, { limit: 10 }, undefined, engineering("first_name"))).text);
  });

  test("of leave is read as text whatever employee fields it hides: a booking's JSON holds none", async () => {
    const { asked, textStore } = withRestrictedText();
    await listLeavePage(textStore, ORG, { ...QUERY_RANGE, limit: 10 }, undefined, engineering("first_name"));
    expect(asked).toEqual(["leave-requests"]);
  });
});

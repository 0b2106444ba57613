/**
 * The client's copies of the pages a sync repeats (client/poll-copies.ts): only the first
 * page of an `updated_since` list is kept; an empty one stands for a later `updated_since`
 * of the same list for HOLD_MS; a page with records only for its own URL; one without an
 * ETag is not kept.
 */
import { expect, test } from "bun:test";
import { HOLD_MS, createPollCopies } from "../client/poll-copies.ts";

const T = Date.parse("2026-05-01T12:00:00.000Z");
const at = (ms: number) => new Date(ms).toISOString();
const employeesFrom = (ms: number, extra = "") => new URL(`http://api.test/v1/employees?limit=100&updated_since=${at(ms)}${extra}`);
const EMPTY = JSON.stringify({ has_more: false, next_cursor: null, data: [] });
const ONE = JSON.stringify({ has_more: false, next_cursor: null, data: [{ id: "x" }] });

test("an empty first page stands for a later updated_since of the same list, for HOLD_MS", () => {
  let now = T;
  const copies = createPollCopies(() => now);
  const first = copies.plan(employeesFrom(T - 5000));
  expect(first.etag).toBeUndefined();
  copies.keep(first, 'W/"a"', EMPTY);
  const later = copies.plan(employeesFrom(T + 55_000));
  expect(later).toEqual({ url: first.url, etag: 'W/"a"', key: first.key! });
  expect(copies.copy(later)).toBe(EMPTY);
  // Another list, an earlier updated_since, a later page: asked as they are.
  expect(copies.plan(employeesFrom(T + 55_000, "&status=active")).etag).toBeUndefined();
  expect(copies.plan(employeesFrom(T - 60_000)).etag).toBeUndefined();
  expect(copies.plan(employeesFrom(T + 55_000, "&cursor=abc"))).toEqual({ url: employeesFrom(T + 55_000, "&cursor=abc").href });
  now = T + HOLD_MS + 1;
  expect(copies.plan(employeesFrom(T + HOLD_MS)).etag).toBeUndefined();
});

test("a page with records is asked again only as itself; one without an ETag is forgotten", () => {
  const copies = createPollCopies(() => T);
  const first = copies.plan(employeesFrom(T));
  copies.keep(first, 'W/"b"', ONE);
  expect(copies.plan(employeesFrom(T + 60_000)).etag).toBeUndefined();
  expect(copies.plan(employeesFrom(T)).etag).toBe('W/"b"');
  copies.keep(copies.plan(employeesFrom(T)), null, ONE);
  expect(copies.plan(employeesFrom(T)).etag).toBeUndefined();
});

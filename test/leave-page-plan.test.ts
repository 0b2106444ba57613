/**
 * The leave page's plan (adapters/sql/leave-page/leave-page-plan.ts): what an organisation's leave context
 * calls for, when a page read under one plan is the page another calls for, and the
 * plans a store remembers by organisation.
 */
import { describe, expect, test } from "bun:test";
import { covers, FIRST_GUESS, planLeavePage, RecentPlans, withTypeFilter, type LeavePagePlan } from "../adapters/sql/leave-page/leave-page-plan.ts";
import { classSpansOf, NO_SPANS } from "../adapters/sql/leave-page/leave-span-plan.ts";

/** A plan for bookings of these spans (days). */
const plan = (types: boolean, deletedEmployees: boolean, ...spans: number[]): LeavePagePlan => ({
  filters: { types, deletedEmployees },
  spans: classSpansOf(spans),
  noAnnualTypes: false,
});

describe("planLeavePage", () => {
  test("only annual types and nobody deleted: no filter, the organisation's class spans", () => {
    expect(planLeavePage(["annual", "annual"], classSpansOf([0, 13]), false)).toEqual(plan(false, false, 0, 13));
  });

  test("another category turns the type filter on; a deleted employee the other", () => {
    expect(planLeavePage(["annual", "sick"], classSpansOf([2]), false)).toEqual(plan(true, false, 2));
    expect(planLeavePage(["annual"], classSpansOf([2]), true)).toEqual(plan(false, true, 2));
  });

  test("no booking yet is no class; no annual type means no rows", () => {
    expect(planLeavePage(["annual"], null, false).spans).toEqual(NO_SPANS);
    expect(planLeavePage(["sick"], classSpansOf([5]), false).noAnnualTypes).toBe(true);
    expect(planLeavePage([], null, false).noAnnualTypes).toBe(true);
  });
});

describe("covers", () => {
  test("a plan covers itself, and any plan that filters less and reaches less far back in every class", () => {
    const wide = plan(true, true, 0, 9, 400);
    for (const needed of [FIRST_GUESS, plan(true, false, 9), plan(false, true, 8, 400), plan(true, true), wide]) expect(covers(wide, needed)).toBe(true);
  });

  test("a filter the context calls for and the plan lacks, a longer span in a class, or a class it skips, is not covered", () => {
    expect(covers(FIRST_GUESS, plan(true, false, 0))).toBe(false);
    expect(covers(FIRST_GUESS, plan(false, true, 0))).toBe(false);
    expect(covers(plan(true, true, 4), plan(true, true, 7))).toBe(false);
    // 9 and 15 share a class; 400 is longer than either, yet says nothing of class 1.
    expect(covers(plan(true, true, 9), plan(true, true, 15))).toBe(false);
    expect(covers(plan(true, true, 400), plan(true, true, 1))).toBe(false);
  });

  test("withTypeFilter covers what the plan did, and a context with another category", () => {
    const base = plan(false, true, 30);
    expect(covers(withTypeFilter(base), base)).toBe(true);
    expect(covers(withTypeFilter(base), plan(true, true, 30))).toBe(true);
  });
});

describe("RecentPlans", () => {
  test("past its capacity it forgets the organisation used least recently, not all of them", () => {
    const plans = new RecentPlans(2);
    plans.set("a", plan(false, false, 1));
    plans.set("b", plan(false, false, 2));
    expect(plans.get("a")).toEqual(plan(false, false, 1));
    plans.set("c", plan(false, false, 3));
    expect(plans.size).toBe(2);
    expect(plans.get("b")).toBeUndefined();
    expect(plans.get("a")).toEqual(plan(false, false, 1));
    expect(plans.get("c")).toEqual(plan(false, false, 3));
  });

  test("setting a known organisation replaces its plan", () => {
    const plans = new RecentPlans(2);
    plans.set("a", plan(false, false, 1));
    plans.set("a", plan(true, false, 1));
    expect(plans.size).toBe(1);
    expect(plans.get("a")?.filters.types).toBe(true);
  });
});

/**
 * The leave page's plan (lib/leave-page-plan.ts): what an organisation's leave context
 * calls for, when a page read under one plan is the page another calls for, and the
 * plans a store remembers by organisation.
 */
import { describe, expect, test } from "bun:test";
import { covers, FIRST_GUESS, planLeavePage, RecentPlans, withTypeFilter, type LeavePagePlan } from "../lib/leave-page-plan.ts";

const plan = (types: boolean, deletedEmployees: boolean, longestSpanDays: number): LeavePagePlan => ({
  filters: { types, deletedEmployees },
  longestSpanDays,
  noAnnualTypes: false,
});

describe("planLeavePage", () => {
  test("only annual types and nobody deleted: no filter, the organisation's longest span", () => {
    expect(planLeavePage(["annual", "annual"], 13, false)).toEqual(plan(false, false, 13));
  });

  test("another category turns the type filter on; a deleted employee the other", () => {
    expect(planLeavePage(["annual", "sick"], 2, false)).toEqual(plan(true, false, 2));
    expect(planLeavePage(["annual"], 2, true)).toEqual(plan(false, true, 2));
  });

  test("no booking yet is a span of 0; no annual type means no rows", () => {
    expect(planLeavePage(["annual"], null, false).longestSpanDays).toBe(0);
    expect(planLeavePage(["sick"], 5, false).noAnnualTypes).toBe(true);
    expect(planLeavePage([], null, false).noAnnualTypes).toBe(true);
  });
});

describe("covers", () => {
  test("a plan covers itself, and any plan that filters less and reaches less far back", () => {
    const wide = plan(true, true, 400);
    for (const needed of [FIRST_GUESS, plan(true, false, 10), plan(false, true, 400), wide]) expect(covers(wide, needed)).toBe(true);
  });

  test("a filter the context calls for and the plan lacks, or a longer span, is not covered", () => {
    expect(covers(FIRST_GUESS, plan(true, false, 0))).toBe(false);
    expect(covers(FIRST_GUESS, plan(false, true, 0))).toBe(false);
    expect(covers(plan(true, true, 6), plan(true, true, 7))).toBe(false);
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
    expect(plans.get("a")?.longestSpanDays).toBe(1);
    plans.set("c", plan(false, false, 3));
    expect(plans.size).toBe(2);
    expect(plans.get("b")).toBeUndefined();
    expect(plans.get("a")?.longestSpanDays).toBe(1);
    expect(plans.get("c")?.longestSpanDays).toBe(3);
  });

  test("setting a known organisation replaces its plan", () => {
    const plans = new RecentPlans(2);
    plans.set("a", plan(false, false, 1));
    plans.set("a", plan(true, false, 1));
    expect(plans.size).toBe(1);
    expect(plans.get("a")?.filters.types).toBe(true);
  });
});

/**
 * What a leave page's scan is written for, decided from the organisation's leave context
 * (its leave types' categories, each span class's longest booking, whether it has deleted
 * employees): which sets each span-class arm must filter by, which classes are scanned and
 * how far back each reaches (leave-span-plan.ts). Pure, so a store can plan once and check later whether a
 * context read afterwards still agrees with what it planned on (`covers`).
 */
import { NO_SPANS, spansCover, type ClassSpans } from "./leave-span-plan.ts";

/** Which sets a leave page must filter by: only what would exclude something is applied. */
export interface LeaveScanFilters {
  /** The organisation has leave types other than annual ones. */
  types: boolean;
  /** The organisation has deleted employees. */
  deletedEmployees: boolean;
}

/** What a page's scan is written for. */
export interface LeavePagePlan {
  filters: LeaveScanFilters;
  /** Each span class's longest booking (leave-span-plan.ts): which classes are scanned, and from how far back. */
  spans: ClassSpans;
  /** No annual leave type, no rows. */
  noAnnualTypes: boolean;
}

/** The plan an organisation's leave context calls for: its leave types' categories, its class spans (null: no booking yet), whether anyone was deleted. */
export function planLeavePage(categories: readonly string[], spans: ClassSpans | null, someoneDeleted: boolean): LeavePagePlan {
  const annualCount = categories.filter((c) => c === "annual").length;
  return {
    // The usual organisation has only annual leave types and no deleted employees: then
    // the page needs neither filter, and each arm is a bare scan of the page index.
    filters: { types: annualCount < categories.length, deletedEmployees: someoneDeleted },
    spans: spans ?? NO_SPANS,
    noAnnualTypes: annualCount === 0,
  };
}

/**
 * Whether a page read under `used` is the page `needed` calls for: a filter applied
 * that excludes nothing, or classes scanned from further back than any booking reaches,
 * change what is read, not what is kept.
 */
export function covers(used: LeavePagePlan, needed: LeavePagePlan): boolean {
  return (
    (used.filters.types || !needed.filters.types) && (used.filters.deletedEmployees || !needed.filters.deletedEmployees) && spansCover(used.spans, needed.spans)
  );
}

/** The first guess for an organisation not seen yet: the usual one, and one-day bookings only (the cheapest page to read in vain). */
export const FIRST_GUESS: LeavePagePlan = { filters: { types: false, deletedEmployees: false }, spans: [0, ...NO_SPANS.slice(1)], noAnnualTypes: false };

/** `plan` with the leave-type filter on: for a page that met a type that is not annual, which a type added meanwhile may be. */
export function withTypeFilter(plan: LeavePagePlan): LeavePagePlan {
  return { ...plan, filters: { ...plan.filters, types: true } };
}

/**
 * The plans last seen, by organisation, at most `capacity`: past it, the one used least
 * recently is forgotten (a map keeps insertion order, and a use moves its entry last),
 * so a busy organisation's plan is never dropped for a crowd of one-off ones.
 */
export class RecentPlans {
  readonly #plans = new Map<string, LeavePagePlan>();
  constructor(readonly capacity: number) {}

  get(organisationId: string): LeavePagePlan | undefined {
    const plan = this.#plans.get(organisationId);
    if (plan !== undefined) {
      this.#plans.delete(organisationId);
      this.#plans.set(organisationId, plan);
    }
    return plan;
  }

  set(organisationId: string, plan: LeavePagePlan): void {
    this.#plans.delete(organisationId);
    this.#plans.set(organisationId, plan);
    if (this.#plans.size > this.capacity) this.#plans.delete(this.#plans.keys().next().value!);
  }

  get size(): number {
    return this.#plans.size;
  }
}

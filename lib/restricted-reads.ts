/**
 * What a restricted credential's requests share (docs/api.md, "Restricted credentials"):
 * the store's restricted reads, refused when the store has none; the 410 for a sync begun
 * before the restriction was set; the restriction's place in a cursor's binding, so a
 * cursor made before it changed is refused; and the holidays it may see.
 */
import { ApiError, invalidParam } from "./errors.ts";
import type { ClosureDayRecord } from "./records.ts";
import { readsField, selectsSome, type CredentialRestriction, type EmployeeFieldName } from "./restriction.ts";
import type { RestrictedReads, Store } from "./store.ts";

/** The store's reads for a restricted client; a store without them is a host's mistake that must not serve the whole organisation. */
export function restrictedReadsOf(store: Pick<Store, "restricted">): RestrictedReads {
  if (!store.restricted)
    throw new Error("This credential is restricted and the Store has no restricted reads (Store.restricted); it is never served unrestricted.");
  return store.restricted;
}

/**
 * 410 `sync_expired` for an `updated_since` before the restriction was set: what the client
 * synced until then was chosen by another restriction, so it must read afresh.
 */
export function checkSyncAfterRestriction(restriction: CredentialRestriction, updatedSince: number | undefined): void {
  if (updatedSince === undefined || updatedSince >= restriction.set_at) return;
  throw new ApiError(
    410,
    "sync_expired",
    "This credential's restriction changed after 'updated_since'; do a full read (without updated_since) and replace your copy, then sync from its start.",
    { param: "updated_since" },
  );
}

/** 400 for a filter on a field the client may not read: filtering by it would tell its value. */
export function checkFilterReadable(restriction: CredentialRestriction, field: EmployeeFieldName, value: unknown): void {
  if (value === undefined || readsField(restriction, field)) return;
  throw invalidParam(field, `This credential may not read the employee field '${field}', so it cannot filter by it.`);
}

/** A cursor's filters with the restriction's instant: a cursor made under another restriction (or none) is refused. */
export function restrictedBinding<F extends object>(filters: F, restriction: CredentialRestriction | undefined): F & { restriction_set_at?: number } {
  return restriction ? { ...filters, restriction_set_at: restriction.set_at } : filters;
}

/**
 * The public calendars and the closure-day filter a restricted client's holidays follow:
 * the calendars its selected employees observe within [from, to], and a closure day that
 * applies to all, or to the department of one of them. A location closure is left out
 * (v1 employees carry no location, so none is known to apply to them). `null`: the
 * restriction selects everyone, so holidays are the organisation's.
 */
export async function restrictedHolidayScope(
  store: Pick<Store, "restricted">,
  organisationId: string,
  restriction: CredentialRestriction,
  from: string,
  to: string,
): Promise<{ calendars: string[]; closure: (c: ClosureDayRecord) => boolean } | null> {
  if (!selectsSome(restriction)) return null;
  const { calendars, departments } = await restrictedReadsOf(store).observedBy(organisationId, from, to, restriction);
  const closure = (c: ClosureDayRecord) =>
    c.applies_to === "all" || (c.applies_to === "department" && c.department !== null && departments.includes(c.department));
  return { calendars, closure };
}

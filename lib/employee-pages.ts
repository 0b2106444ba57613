/**
 * Reading employees (docs/api.md, "GET /v1/employees", "GET /v1/employees/{id}"): a page
 * in ascending (updated_at, id) order, or one employee, of the token's organisation, in
 * their v1 JSON shape.
 */
import type { EmployeeJson } from "./api-schemas.ts";
import { notFound } from "./errors.ts";
import type { HmacSha256 } from "./cursor-codec.ts";
import { readListPage, type KeysetPosition, type Page } from "./keyset-page.ts";
import type { RawJson } from "./raw-json.ts";
import { employeeJson } from "./records.ts";
import type { EmployeesParams } from "./request-params.ts";
import { checkFilterReadable, checkSyncAfterRestriction, restrictedBinding, restrictedReadsOf } from "./restricted-reads.ts";
import { RESTRICTABLE_FIELDS, restrictedEmployeeJson, type CredentialRestriction, type EmployeeFieldName } from "./restriction.ts";
import type { EmployeePageQuery, Store } from "./store.ts";

const isEmployeeField = (name: string): name is EmployeeFieldName => (RESTRICTABLE_FIELDS as readonly string[]).includes(name);

/**
 * One page of the organisation's employees as its JSON body; throws 400 `cursor` for a
 * cursor made for other filters. Every filter of the request goes to the cursor's binding
 * and to the store as it is. With a `restriction`, only the employees it selects, each
 * with the fields it may not read as null (docs/api.md, "Restricted credentials").
 */
export async function listEmployeePage(
  store: Pick<Store, "installationKey" | "listEmployees" | "listText" | "restricted">,
  organisationId: string,
  params: EmployeesParams,
  mac?: HmacSha256,
  restriction?: CredentialRestriction,
): Promise<RawJson<Page<EmployeeJson>>> {
  const { limit, cursor, ...filters } = params;
  if (restriction) {
    // A filter named as an employee field tests that field: refused unless the client reads it.
    for (const [name, value] of Object.entries(filters)) {
      if (isEmployeeField(name)) checkFilterReadable(restriction, name, value);
    }
    checkSyncAfterRestriction(restriction, filters.updated_since);
  }
  const query = (after: KeysetPosition<"number"> | undefined, n: number): EmployeePageQuery => ({
    organisationId,
    filters,
    after: after && { updatedAt: after[0], id: after[1] },
    limit: n,
  });
  const restricted = restriction && restrictedReadsOf(store);
  return readListPage(
    store,
    {
      binding: { organisationId, endpoint: "employees", filters: restrictedBinding(filters, restriction) },
      cursor,
      limit,
      sortKey: "number",
      fetch: (after, n) => (restricted ? restricted.listEmployees(query(after, n), restriction) : store.listEmployees(query(after, n))),
      position: (employee) => [employee.updated_at, employee.id],
      shape: restriction ? (e) => restrictedEmployeeJson(restriction, employeeJson(e)) : employeeJson,
      mac,
    },
    // Called on the store, not taken off it: a host's store may be a class. A restricted page
    // is read as text only when the client reads every field; with some hidden, as records.
    restricted
      ? restricted.listText && restriction.fields === null
        ? (after, n) => restricted.listText!({ list: "employees", query: query(after, n) }, restriction)
        : undefined
      : store.listText
        ? (after, n) => store.listText!({ list: "employees", query: query(after, n) })
        : undefined,
  );
}

/**
 * One employee of the organisation by its lower-case id; throws 404 when there is none (or
 * it is deleted, or outside the `restriction`, answered alike).
 */
export async function getEmployee(
  store: Pick<Store, "findEmployee" | "restricted">,
  organisationId: string,
  id: string,
  restriction?: CredentialRestriction,
): Promise<EmployeeJson> {
  const employee = restriction ? await restrictedReadsOf(store).findEmployee(organisationId, id, restriction) : await store.findEmployee(organisationId, id);
  if (!employee) throw notFound("No employee with this id.");
  return restriction ? restrictedEmployeeJson(restriction, employeeJson(employee)) : employeeJson(employee);
}

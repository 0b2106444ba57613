/**
 * Reading employees (docs/api.md, "GET /v1/employees", "GET /v1/employees/{id}"): a page
 * in ascending (updated_at, id) order, or one employee, of the token's organisation, in
 * their v1 JSON shape.
 */
import type { EmployeeJson } from "./api-schemas.ts";
import { notFound } from "./errors.ts";
import { readKeysetPage, type Page } from "./keyset-page.ts";
import { employeeJson } from "./records.ts";
import type { EmployeesParams } from "./request-params.ts";
import type { Store } from "./store.ts";

/** One page of the organisation's employees; throws 400 `cursor` for a cursor made for other filters. */
export function listEmployeePage(
  store: Pick<Store, "installationKey" | "listEmployees">,
  organisationId: string,
  params: EmployeesParams,
): Promise<Page<EmployeeJson>> {
  const { status, updated_since } = params;
  return readKeysetPage(store, {
    binding: { organisationId, endpoint: "employees", filters: { status, updated_since } },
    cursor: params.cursor,
    limit: params.limit,
    sortKey: "number",
    fetch: (after, limit) =>
      store.listEmployees({ organisationId, status, updatedSince: updated_since, after: after && { updatedAt: after[0], id: after[1] }, limit }),
    position: (employee) => [employee.updated_at, employee.id],
    shape: employeeJson,
  });
}

/** One employee of the organisation by its lower-case id; throws 404 when there is none (or it is deleted). */
export async function getEmployee(store: Pick<Store, "findEmployee">, organisationId: string, id: string): Promise<EmployeeJson> {
  const employee = await store.findEmployee(organisationId, id);
  if (!employee) throw notFound("No employee with this id.");
  return employeeJson(employee);
}

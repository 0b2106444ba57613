/**
 * Reading employees (docs/api.md, "GET /v1/employees", "GET /v1/employees/{id}"): a page
 * in ascending (updated_at, id) order, or one employee, of the token's organisation, in
 * their v1 JSON shape.
 */
import type { EmployeeJson } from "./api-schemas.ts";
import { notFound } from "./errors.ts";
import type { HmacSha256 } from "./cursor-codec.ts";
import { readListPage, type KeysetPosition, type Page } from "./keyset-page.ts";
import type { PageText } from "./record-text.ts";
import { employeeJson } from "./records.ts";
import type { EmployeesParams } from "./request-params.ts";
import type { EmployeePageQuery, Store } from "./store.ts";

/**
 * One page of the organisation's employees; throws 400 `cursor` for a cursor made for
 * other filters. A store that keeps records as JSON text answers it as text (the same
 * bytes once serialized).
 */
export async function listEmployeePage(
  store: Pick<Store, "installationKey" | "listEmployees" | "listEmployeesText">,
  organisationId: string,
  params: EmployeesParams,
  mac?: HmacSha256,
): Promise<Page<EmployeeJson> | PageText> {
  const { status, updated_since } = params;
  const binding = { organisationId, endpoint: "employees", filters: { status, updated_since } };
  const query = (after: KeysetPosition<"number"> | undefined, limit: number): EmployeePageQuery => ({
    organisationId,
    status,
    updatedSince: updated_since,
    after: after && { updatedAt: after[0], id: after[1] },
    limit,
  });
  return readListPage(
    store,
    {
      binding,
      cursor: params.cursor,
      limit: params.limit,
      sortKey: "number",
      fetch: (after, n) => store.listEmployees(query(after, n)),
      position: (employee) => [employee.updated_at, employee.id],
      shape: employeeJson,
      mac,
    },
    // Called on the store, not taken off it: a host's store may be a class.
    store.listEmployeesText && ((after, n) => store.listEmployeesText!(query(after, n))),
  );
}

/** One employee of the organisation by its lower-case id; throws 404 when there is none (or it is deleted). */
export async function getEmployee(store: Pick<Store, "findEmployee">, organisationId: string, id: string): Promise<EmployeeJson> {
  const employee = await store.findEmployee(organisationId, id);
  if (!employee) throw notFound("No employee with this id.");
  return employeeJson(employee);
}

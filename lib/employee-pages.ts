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
import type { EmployeePageQuery, Store } from "./store.ts";

/**
 * One page of the organisation's employees as its JSON body; throws 400 `cursor` for a
 * cursor made for other filters. Every filter of the request goes to the cursor's binding
 * and to the store as it is.
 */
export async function listEmployeePage(
  store: Pick<Store, "installationKey" | "listEmployees" | "listText">,
  organisationId: string,
  params: EmployeesParams,
  mac?: HmacSha256,
): Promise<RawJson<Page<EmployeeJson>>> {
  const { limit, cursor, ...filters } = params;
  const query = (after: KeysetPosition<"number"> | undefined, n: number): EmployeePageQuery => ({
    organisationId,
    filters,
    after: after && { updatedAt: after[0], id: after[1] },
    limit: n,
  });
  return readListPage(
    store,
    {
      binding: { organisationId, endpoint: "employees", filters },
      cursor,
      limit,
      sortKey: "number",
      fetch: (after, n) => store.listEmployees(query(after, n)),
      position: (employee) => [employee.updated_at, employee.id],
      shape: employeeJson,
      mac,
    },
    // Called on the store, not taken off it: a host's store may be a class.
    store.listText && ((after, n) => store.listText!({ list: "employees", query: query(after, n) })),
  );
}

/** One employee of the organisation by its lower-case id; throws 404 when there is none (or it is deleted). */
export async function getEmployee(store: Pick<Store, "findEmployee">, organisationId: string, id: string): Promise<EmployeeJson> {
  const employee = await store.findEmployee(organisationId, id);
  if (!employee) throw notFound("No employee with this id.");
  return employeeJson(employee);
}

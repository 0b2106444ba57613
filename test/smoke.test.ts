import { expect, test } from "bun:test";
import { authorisedOrganisation, createWorld, employee, seed } from "./support.ts";

test("a token reads the employees page", async () => {
  const world = await createWorld();
  const { organisationId, get } = await authorisedOrganisation(world);
  await seed(world, organisationId, { employees: [employee()] });
  const res = await get("/v1/employees");
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: unknown[]; has_more: boolean; next_cursor: null };
  expect(body.data).toHaveLength(1);
  expect(body.has_more).toBe(false);
  expect(body.next_cursor).toBeNull();
});

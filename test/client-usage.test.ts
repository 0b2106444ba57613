/**
 * When each client last obtained a token (docs/cli.md, "credentials"; adapters/sql/token-queries.ts),
 * which `leaveapi credentials list` shows: noted at most once a minute per client, on
 * every store this run tests.
 */
import { expect, test } from "bun:test";
import { clientsLastUsed } from "../adapters/sql/sql-admin-store.ts";
import { createClient, createOrganisation, createWorld, requestToken } from "./support.ts";

test("a token request notes the client's use, at most once a minute; another client's is its own; an organisation deleted takes its notes along", async () => {
  const world = await createWorld();
  const org = await createOrganisation(world);
  const a = await createClient(world, org);
  const b = await createClient(world, org);
  expect(await clientsLastUsed(world.store)).toEqual(new Map());
  const first = world.clock.now();
  expect((await requestToken(world, a)).res.status).toBe(200);
  expect((await clientsLastUsed(world.store)).get(a.clientId)).toBe(first);
  world.clock.advance(30_000);
  expect((await requestToken(world, a)).res.status).toBe(200);
  expect((await clientsLastUsed(world.store)).get(a.clientId)).toBe(first);
  world.clock.advance(31_000);
  expect((await requestToken(world, a)).res.status).toBe(200);
  expect((await clientsLastUsed(world.store)).get(a.clientId)).toBe(first + 61_000);
  expect((await clientsLastUsed(world.store)).has(b.clientId)).toBe(false);
  await world.store.deleteOrganisation(org);
  expect(await clientsLastUsed(world.store)).toEqual(new Map());
});

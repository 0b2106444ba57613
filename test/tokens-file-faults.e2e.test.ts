/**
 * The SQLite tokens file under a running `leaveapi serve` (DECISIONS §2; issue 35):
 * deleted, replaced by another file, made read-only, or damaged. Each time the server
 * notices: the token endpoint answers 503 (never a 500), a token issued before is not
 * accepted again (no `org disable-api` + `enable-api` through a new file revives it),
 * `/healthz` answers 503 naming token issuance, the log says why; and `leaveapi check`
 * reports a read-only or damaged file.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, openSync, renameSync, rmSync, statSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { fetchAccessToken, runCli, runJson, scratchDir, startServer } from "./cli-harness.ts";
import { pollUntil } from "./pg-scratch.ts";

const scratch = scratchDir();
afterAll(() => scratch.dispose());

type Fault = "deleted" | "replaced" | "read-only" | "damaged";

function breakTokensFile(file: string, fault: Fault): void {
  const tokens = `${file}-tokens`;
  if (fault === "deleted") for (const suffix of ["", "-wal", "-shm"]) rmSync(`${tokens}${suffix}`, { force: true });
  if (fault === "replaced") {
    // An older copy of the file, put in its place as a restore or a careless copy would.
    copyFileSync(tokens, `${tokens}.copy`);
    renameSync(`${tokens}.copy`, tokens);
  }
  if (fault === "read-only") chmodSync(tokens, 0o444);
  if (fault === "damaged") {
    const fd = openSync(tokens, "r+");
    writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, 0);
    closeSync(fd);
  }
}

async function tokenFileFault(fault: Fault): Promise<void> {
  const file = join(scratch.dir, `${fault}.sqlite`);
  const db = ["--db", file];
  const org = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Faulty"])).id;
  await runJson([...db, "org", "enable-api", org]);
  const client = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", org]);
  const server = await startServer(db);
  try {
    const token = await fetchAccessToken(server.baseUrl, client);
    const read = () => fetch(`${server.baseUrl}/v1/employees`, { headers: { Authorization: `Bearer ${token}` } });
    const askToken = () =>
      fetch(`${server.baseUrl}/v1/oauth/token`, {
        method: "POST",
        headers: { Authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials",
      });
    expect((await read()).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);

    breakTokensFile(file, fault);
    if (fault === "deleted" || fault === "replaced") {
      // The commands open the file now at the path: the server's tokens must not come back through it.
      await runJson([...db, "org", "disable-api", org]);
      await runJson([...db, "org", "enable-api", org]);
    }
    // Noticed within seconds (a damaged header is read again once a second): /healthz says so first.
    await pollUntil("/healthz answers 503", 5000, async () => ((await fetch(`${server.baseUrl}/healthz`)).status === 503 ? true : undefined));
    const issued = await askToken();
    expect(issued.status).toBe(503);
    expect(issued.headers.get("retry-after")).toBe("5");
    expect(((await issued.json()) as { error: string }).error).toBe("temporarily_unavailable");
    // The token issued before the fault is not accepted (within the grant cache's seconds).
    const refused = await pollUntil("the earlier token no longer accepted", 5000, async () => {
      const res = await read();
      return res.status === 200 ? undefined : res.status;
    });
    expect([401, 503]).toContain(refused.value);
    const health = await fetch(`${server.baseUrl}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({
      error: "temporarily_unavailable",
      error_description: expect.any(String),
      unavailable: "token_issuance",
    });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await askToken()).status, (await read()).status);
    expect(statuses.filter((s) => s === 500 || s === 200)).toEqual([]);
    expect(server.output()).not.toContain('"status":500');
    expect(server.output()).toContain("StoreUnavailableError");
    if (fault === "read-only" || fault === "damaged") {
      const check = await runCli([...db, "check"]);
      expect(check.code).toBe(1);
      expect(check.stderr).toContain("tokens file");
    }
  } finally {
    expect(await server.stop()).toBe(0);
  }
}

describe("a SQLite tokens file broken under a running server", () => {
  for (const fault of ["deleted", "replaced", "read-only", "damaged"] as const) {
    test(`${fault}: 503 on the token endpoint, /healthz 503 naming token issuance, no token revived, no 500`, () => tokenFileFault(fault), 60_000);
  }

  test("a tokens file read-only at start: 503 and /healthz 503, and check reports it", async () => {
    const file = join(scratch.dir, "read-only-at-start.sqlite");
    const db = ["--db", file];
    const org = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Read only"])).id;
    await runJson([...db, "org", "enable-api", org]);
    const client = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", org]);
    chmodSync(`${file}-tokens`, 0o444);
    const server = await startServer(db);
    try {
      const res = await fetch(`${server.baseUrl}/v1/oauth/token`, {
        method: "POST",
        headers: { Authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials",
      });
      expect(res.status).toBe(503);
      const health = await fetch(`${server.baseUrl}/healthz`);
      expect(health.status).toBe(503);
      expect(((await health.json()) as { unavailable: string }).unavailable).toBe("token_issuance");
    } finally {
      await server.stop();
    }
    const check = await runCli([...db, "check"]);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain("read-only");
  }, 60_000);

  test("a new tokens file takes the data file's mode (SQLite gives its -wal and -shm the mode of their file)", async () => {
    const file = join(scratch.dir, "modes.sqlite");
    const db = ["--db", file];
    const org = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Modes"])).id;
    chmodSync(file, 0o600);
    for (const suffix of ["-tokens", "-tokens-wal", "-tokens-shm"]) rmSync(`${file}${suffix}`, { force: true });
    await runJson([...db, "org", "enable-api", org]);
    const { statSync } = await import("node:fs");
    expect((statSync(`${file}-tokens`).mode & 0o777).toString(8)).toBe("600");
  }, 60_000);
});

test("an older copy of the tokens file put back undoes no later control: access stays off, the old secret stays refused", async () => {
  const file = join(scratch.dir, "older-copy.sqlite");
  const db = ["--db", file];
  const org = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Older copy"])).id;
  await runJson([...db, "org", "enable-api", org]);
  const client = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", org]);
  await runJson([...db, "org", "disable-api", org]);
  await runJson([...db, "org", "enable-api", org]);
  // The copy: access on, the first secret.
  const older = join(scratch.dir, "older-copy.tokens");
  const tokens = new Database(`${file}-tokens`);
  tokens.query("VACUUM INTO ?").run(older);
  tokens.close();
  const rotated = await runJson<{ client_secret: string }>([...db, "credentials", "rotate", client.client_id]);
  await runJson([...db, "org", "disable-api", org]);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}-tokens${suffix}`, { force: true });
  copyFileSync(older, `${file}-tokens`);

  const orgs = await runJson<{ id: string; api_enabled: boolean }[]>([...db, "org", "list"]);
  expect(orgs.find((o) => o.id === org)?.api_enabled).toBe(false);
  await runJson([...db, "org", "enable-api", org]);
  const server = await startServer(db);
  try {
    const ask = (secret: string) =>
      fetch(`${server.baseUrl}/v1/oauth/token`, {
        method: "POST",
        headers: { Authorization: `Basic ${btoa(`${client.client_id}:${secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials",
      });
    expect((await ask(client.client_secret)).status).toBe(401);
    expect((await ask(rotated.client_secret)).status).toBe(200);
  } finally {
    await server.stop();
  }
}, 60_000);

test("a tokens file open to more than the database file is narrowed to its mode when the store opens", async () => {
  const file = join(scratch.dir, "wide.sqlite");
  await runJson(["--db", file, "org", "create", "--name", "Wide"]);
  chmodSync(file, 0o600);
  chmodSync(`${file}-tokens`, 0o644);
  await runJson(["--db", file, "org", "list"]);
  expect((statSync(`${file}-tokens`).mode & 0o777).toString(8)).toBe("600");
  // Never widened: a narrower one stays as it is.
  chmodSync(file, 0o644);
  await runJson(["--db", file, "org", "list"]);
  expect((statSync(`${file}-tokens`).mode & 0o777).toString(8)).toBe("600");
}, 30_000);

test("a tokens file damaged before the server starts: serve refuses to start with one clear line, check reports it", async () => {
  const file = join(scratch.dir, "damaged-at-start.sqlite");
  await runJson(["--db", file, "org", "create", "--name", "Damaged"]);
  breakTokensFile(file, "damaged");
  // Before issue 35 the store kept its tokens and controls in the data file instead, without a word.
  const serve = await runCli(["--db", file, "serve", "--port", "0"]);
  expect(serve.code).toBe(1);
  expect(serve.stderr.trim().split("\n")).toEqual([
    `leaveapi: cannot open the sqlite database ${file}: the tokens file ${file}-tokens cannot be used (file is not a database); run 'leaveapi check'. A damaged one can be moved aside: clients then ask for new tokens`,
  ]);
  const check = await runCli(["--db", file, "check"]);
  expect(check.code).toBe(1);
  expect(check.stderr).toContain("tokens file: the database cannot be read: file is not a database");
}, 30_000);

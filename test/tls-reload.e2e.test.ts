/**
 * A renewed TLS certificate without a restart (issue 38; docs/install.md, "TLS: directly, or behind a reverse proxy"): `serve`
 * reads its certificate and key again on SIGHUP. New connections get the new certificate,
 * a request in flight on a connection opened before keeps going and is answered, a file
 * that cannot be used is logged and the previous certificate kept, and with --workers
 * every process swaps.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect, type TLSSocket } from "node:tls";
import { scratchDir, startServer, type RunningServer } from "./cli-harness.ts";
import { fetchToken, provisionDatabase, selfSignedCertificate, type Provisioned } from "./serve-fixture.ts";

let p: Provisioned;
let scratch: ReturnType<typeof scratchDir>;
const pem = (name: string) => join(scratch.dir, name);

beforeAll(async () => {
  p = await provisionDatabase("tls-reload.sqlite");
  scratch = scratchDir();
  for (const name of ["first", "renewed"]) selfSignedCertificate(pem(`${name}.crt`), pem(`${name}.key`), name);
}, 30_000);

afterAll(() => {
  p.dispose();
  scratch.dispose();
});

/** Puts a certificate and its key where the server reads them, as a renewal does. */
function install(name: string): void {
  copyFileSync(pem(`${name}.crt`), pem("cert.pem"));
  copyFileSync(pem(`${name}.key`), pem("key.pem"));
}

function portOf(server: RunningServer): number {
  return Number(new URL(server.baseUrl).port);
}

/** A new TLS connection: resolves with it and the common name of the certificate it was given. */
async function open(server: RunningServer): Promise<{ socket: TLSSocket; name: string }> {
  const socket = connect({ host: "127.0.0.1", port: portOf(server), rejectUnauthorized: false });
  await new Promise<void>((resolve, reject) => {
    socket.once("secureConnect", resolve);
    socket.once("error", reject);
  });
  return { socket, name: String(socket.getPeerCertificate().subject.CN) };
}

async function certificateOfNewConnection(server: RunningServer): Promise<string> {
  const { socket, name } = await open(server);
  socket.destroy();
  return name;
}

/** Waits (bounded) until the server's output holds `text` `times` times. */
async function waitForOutput(server: RunningServer, text: string, times = 1): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (server.output().split(text).length - 1 < times) {
    if (Date.now() > deadline) throw new Error(`the server never logged ${text} ${times} time(s):\n${server.output()}`);
    await Bun.sleep(20);
  }
}

describe("SIGHUP reloads the TLS certificate and key", () => {
  test("new connections get the renewed certificate; a request in flight on an old connection is answered", async () => {
    install("first");
    const server = await startServer(p.db, { serveArgs: ["--tls-cert", pem("cert.pem"), "--tls-key", pem("key.pem")] });
    try {
      expect(await certificateOfNewConnection(server)).toBe("first");

      // A token request whose body is half sent when the certificate changes.
      const old = await open(server);
      expect(old.name).toBe("first");
      const body = "grant_type=client_credentials";
      const basic = btoa(`${p.clientId}:${p.clientSecret}`);
      old.socket.write(
        `POST /v1/oauth/token HTTP/1.1\r\nHost: localhost\r\nAuthorization: Basic ${basic}\r\n` +
          `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
      );
      let answer = "";
      old.socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));

      install("renewed");
      server.kill("SIGHUP");
      await waitForOutput(server, "tls_reloaded");
      expect(await certificateOfNewConnection(server)).toBe("renewed");
      for (let i = 0; i < 5; i++) expect(await certificateOfNewConnection(server)).toBe("renewed");

      old.socket.write(body.slice(10));
      const deadline = Date.now() + 10_000;
      while (!answer.includes("access_token") && Date.now() < deadline) await Bun.sleep(20);
      expect(answer).toStartWith("HTTP/1.1 200");
      expect(answer).toContain('"access_token"');
      old.socket.destroy();

      // The server keeps answering in full over the new certificate.
      const token = await fetchToken(server.baseUrl, p, "basic", { tls: { rejectUnauthorized: false } });
      expect(token).toStartWith("svct_");
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 60_000);

  test("a certificate that cannot be used is logged and the previous one kept", async () => {
    install("first");
    const server = await startServer(p.db, { serveArgs: ["--tls-cert", pem("cert.pem"), "--tls-key", pem("key.pem")] });
    try {
      writeFileSync(pem("cert.pem"), "-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n");
      server.kill("SIGHUP");
      await waitForOutput(server, "tls_reload_failed");
      expect(server.output()).toContain("still serving the previous certificate");
      expect(await certificateOfNewConnection(server)).toBe("first");
      // A good pair afterwards is taken up as usual.
      install("renewed");
      server.kill("SIGHUP");
      await waitForOutput(server, "tls_reloaded");
      expect(await certificateOfNewConnection(server)).toBe("renewed");
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 60_000);

  test("without TLS, SIGHUP is logged and the server serves on (systemctl reload is safe)", async () => {
    const server = await startServer(p.db);
    try {
      server.kill("SIGHUP");
      await waitForOutput(server, "no TLS certificate to read again");
      expect((await fetch(`${server.baseUrl}/livez`)).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 60_000);

  test("with --workers 2 every process serves the renewed certificate", async () => {
    install("first");
    const server = await startServer(p.db, { serveArgs: ["--workers", "2", "--tls-cert", pem("cert.pem"), "--tls-key", pem("key.pem")] });
    try {
      install("renewed");
      server.kill("SIGHUP");
      await waitForOutput(server, "tls_reloaded", 2);
      const names = new Set<string>();
      for (let i = 0; i < 20; i++) names.add(await certificateOfNewConnection(server));
      expect([...names]).toEqual(["renewed"]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 60_000);
});

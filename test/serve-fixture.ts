/**
 * What the `leaveapi serve` end-to-end tests share: a SQLite file with one organisation,
 * working credentials and the example employees and bookings, made with the real command
 * line; and a token fetched the way a client would.
 */
import { join } from "node:path";
import { runJson, scratchDir } from "./cli-harness.ts";

export interface Provisioned {
  /** The global options naming the database: `["--db", FILE]`. */
  db: string[];
  organisationId: string;
  clientId: string;
  clientSecret: string;
  dispose: () => void;
}

const EXAMPLES = join(import.meta.dir, "../examples/import");

export async function provisionDatabase(name = "serve.sqlite"): Promise<Provisioned> {
  const scratch = scratchDir();
  const db = ["--db", join(scratch.dir, name)];
  const org = await runJson<{ id: string }>([...db, "org", "create", "--name", "Serve Ltd"]);
  await runJson([...db, "org", "enable-api", org.id]);
  const creds = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", org.id]);
  await runJson([...db, "import", "--org", org.id, "--kind", "employees", join(EXAMPLES, "employees.jsonl")]);
  await runJson([...db, "import", "--org", org.id, "--kind", "leave", join(EXAMPLES, "leave.jsonl")]);
  return { db, organisationId: org.id, clientId: creds.client_id, clientSecret: creds.client_secret, dispose: scratch.dispose };
}

/** Extra fetch options Bun understands (TLS settings for a self-signed certificate). */
export type FetchExtras = { tls?: { rejectUnauthorized: boolean } };

/** A token by client_secret_basic (or, with `post`, client_secret_post). */
export async function fetchToken(baseUrl: string, p: Provisioned, how: "basic" | "post" = "basic", extras: FetchExtras = {}): Promise<string> {
  const body = new URLSearchParams({ grant_type: "client_credentials" });
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  if (how === "basic") headers.Authorization = `Basic ${btoa(`${p.clientId}:${p.clientSecret}`)}`;
  else {
    body.set("client_id", p.clientId);
    body.set("client_secret", p.clientSecret);
  }
  const res = await fetch(`${baseUrl}/v1/oauth/token`, { method: "POST", headers, body, ...extras });
  if (res.status !== 200) throw new Error(`token request answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** A self-signed certificate and its key for 127.0.0.1 tests (openssl); a failure says why. */
export function selfSignedCertificate(certFile: string, keyFile: string, commonName = "localhost"): void {
  const openssl = Bun.spawnSync(
    ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", `/CN=${commonName}`, "-days", "1"].concat([
      "-keyout",
      keyFile,
      "-out",
      certFile,
    ]),
    { stderr: "pipe" },
  );
  if (openssl.exitCode !== 0) throw new Error(`openssl could not make a test certificate: ${openssl.stderr.toString()}`);
}

/**
 * Content coding of answers (docs/api.md, "HTTP behaviour", "Compression"): a JSON answer
 * of at least COMPRESS_MIN_BYTES is sent gzip- (or br-) coded when the client's
 * `Accept-Encoding` asks for it, q-values honoured; everything else goes as it is. The
 * docs script, static, is coded once and cached (server/docs-page.ts).
 *
 * Runtime-neutral: the default gzip is the web-standard `CompressionStream`, which Bun,
 * Node and Deno all have; on Bun it costs what node:zlib does at the same level (6), but
 * no level can be chosen. Brotli is not in that standard, and Bun's
 * `CompressionStream("brotli")` runs at quality 11, far too slow for a page made per
 * request. So a host may pass its own encoders: `leaveapi serve` passes node:zlib's at
 * levels chosen for pages made per request, gzip and br (adapters/zlib-encoders.ts).
 */

import { utf8 } from "../lib/encoding.ts";

export type ContentCoding = "gzip" | "br";

/** Encodes a whole body. */
export type Encoder = (bytes: Uint8Array) => Promise<Uint8Array>;

/** The codings a handler can send, in its order of preference when the client likes several equally. */
export type Encoders = Partial<Record<ContentCoding, Encoder>>;

/** Below this a body goes uncoded (unless the client refused `identity`): the coding would cost more than it saves. */
export const COMPRESS_MIN_BYTES = 1024;

/** gzip through the web-standard CompressionStream. */
export async function gzipWithCompressionStream(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new CompressionStream("gzip");
  const writer = stream.writable.getWriter();
  void writer.write(bytes as Uint8Array<ArrayBuffer>);
  void writer.close();
  return new Uint8Array(await new Response(stream.readable).arrayBuffer());
}

/** What every host gets unless it passes its own: gzip, the one coding every runtime's web APIs make fast. */
export const WEB_ENCODERS: Encoders = { gzip: gzipWithCompressionStream };

export interface CodingChoice {
  /** The coding to send, or "identity" for none. */
  coding: ContentCoding | "identity";
  /** The client said `identity;q=0` (or `*;q=0` without naming identity): a body of any size is then coded if it can be. */
  identityRefused: boolean;
}

const IDENTITY: CodingChoice = { coding: "identity", identityRefused: false };

/** The q-value of one Accept-Encoding member's parameters; a malformed one counts as 1, like no q at all (RFC 9110 §12.4.2). */
function qualityOf(parameters: string[]): number {
  for (const parameter of parameters) {
    const [name, value] = parameter.split("=", 2).map((s) => s.trim());
    if (name?.toLowerCase() !== "q" || value === undefined) continue;
    if (!/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value)) return 1;
    return Number(value);
  }
  return 1;
}

/**
 * The coding for an answer, from the request's Accept-Encoding (RFC 9110 §12.5.3): the
 * acceptable coding (q > 0, named or by `*`) with the highest q among `available`, ties
 * going to the earlier one; none when no header was sent, when identity is explicitly
 * preferred (a higher q), or when nothing offered is acceptable.
 */
export function chooseCoding(acceptEncoding: string | null, available: readonly ContentCoding[]): CodingChoice {
  if (acceptEncoding === null || available.length === 0) return IDENTITY;
  const named = new Map<string, number>();
  for (const member of acceptEncoding.split(",")) {
    const [coding, ...parameters] = member.split(";");
    const name = coding?.trim().toLowerCase();
    if (!name) continue;
    // The first mention counts; a repeated coding does not override it.
    if (!named.has(name)) named.set(name, qualityOf(parameters));
  }
  const star = named.get("*");
  const identityQ = named.get("identity") ?? (star === 0 ? 0 : undefined);
  let best: ContentCoding | undefined;
  let bestQ = 0;
  for (const coding of available) {
    const q = named.get(coding) ?? star ?? 0;
    if (q > bestQ) [best, bestQ] = [coding, q];
  }
  const identityRefused = identityQ === 0;
  if (best === undefined || (identityQ !== undefined && identityQ > bestQ)) return { coding: "identity", identityRefused };
  return { coding: best, identityRefused };
}

/**
 * Whether an answer's body is one encodeAnswer codes: JSON (the docs script, static, codes
 * itself once: server/docs-page.ts). Every JSON answer here has a body; `res.body` is not
 * read to ask, since on Bun that makes a stream of a body Bun.serve would send in one write.
 */
export function isEncodable(res: Response): boolean {
  return res.headers.get("content-type")?.startsWith("application/json") === true;
}

/**
 * The answer, coded as the request asks: `Vary: Accept-Encoding` on every encodable answer
 * (its bytes depend on that header); the body coded, with Content-Encoding and
 * Content-Length (so that an answer to HEAD says what GET would send), when a coding was
 * chosen and the body is at least COMPRESS_MIN_BYTES or identity was refused. The body is
 * read only when it may be coded, so a client that asks for no coding pays nothing.
 */
export async function encodeAnswer(res: Response, acceptEncoding: string | null, encoders: Encoders): Promise<Response> {
  // Coded already, or answered by codedJson, which has decided (and said Vary) itself.
  if (!isEncodable(res) || res.headers.has("content-encoding") || res.headers.has("vary")) return res;
  res.headers.append("Vary", "Accept-Encoding");
  const choice = chooseCoding(acceptEncoding, Object.keys(encoders) as ContentCoding[]);
  if (choice.coding === "identity") return res;
  return codedBody(new Uint8Array(await res.arrayBuffer()), choice.coding, choice.identityRefused, res.status, res.headers, encoders);
}

/**
 * A JSON answer whose body is already text (a data page), coded as the request asks by
 * the same rules as encodeAnswer, straight from the text: no uncoded Response is made
 * first and read back. `Vary: Accept-Encoding` on every such answer.
 */
export function codedJson(status: number, text: string, acceptEncoding: string | null, encoders: Encoders): Response | Promise<Response> {
  const headers = new Headers({ "Content-Type": "application/json", Vary: "Accept-Encoding" });
  const choice = chooseCoding(acceptEncoding, Object.keys(encoders) as ContentCoding[]);
  // A UTF-16 unit is at most three UTF-8 bytes: a text this short is a body under the minimum.
  if (choice.coding === "identity" || (text.length * 3 < COMPRESS_MIN_BYTES && !choice.identityRefused)) return new Response(text, { status, headers });
  return codedBody(utf8(text), choice.coding, choice.identityRefused, status, headers, encoders);
}

/**
 * `bytes` coded with `coding` when at least COMPRESS_MIN_BYTES or identity was refused,
 * with Content-Encoding and Content-Length; else, or when the coding fails (it must not
 * lose the answer), as they are.
 */
async function codedBody(
  bytes: Uint8Array,
  coding: ContentCoding,
  identityRefused: boolean,
  status: number,
  headers: Headers,
  encoders: Encoders,
): Promise<Response> {
  if (bytes.byteLength < COMPRESS_MIN_BYTES && !identityRefused) return new Response(bytes as Uint8Array<ArrayBuffer>, { status, headers });
  let coded: Uint8Array;
  try {
    coded = await encoders[coding]!(bytes);
  } catch {
    return new Response(bytes as Uint8Array<ArrayBuffer>, { status, headers });
  }
  headers.set("Content-Encoding", coding);
  headers.set("Content-Length", String(coded.byteLength));
  return new Response(coded as Uint8Array<ArrayBuffer>, { status, headers });
}

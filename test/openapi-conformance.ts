/**
 * No drift between the OpenAPI document and the handler: `conformToDocument` wraps a handler
 * so that every response it gives is checked against the document before the test sees it,
 * and a response the document does not describe fails the test that received it.
 *
 * For the request's path and method it finds the operation (HEAD uses GET's; a request that
 * matches none uses the document's `x-unmatched-requests`), then requires the status to be
 * listed there, every required header to be present and valid, and the body (a clone) to
 * have a documented content type and match its schema, with Ajv (JSON Schema 2020-12).
 */
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { openApiDocument } from "../server/openapi.ts";
import type { Handler } from "../server/handler.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The document as plain JSON, as a client receives it. */
const doc = JSON.parse(JSON.stringify(openApiDocument)) as JsonObject;
const DOC_ID = "openapi.json";

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
// The document's own fields are not schema keywords; strict mode stays on for the schemas.
ajv.addVocabulary(Object.keys(doc));
ajv.addSchema(doc, DOC_ID);

const isObject = (value: Json | undefined): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
const escapePointer = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");

/** A node of the document with its JSON pointer, following a `$ref` to where it points. */
interface Located {
  node: JsonObject;
  pointer: string;
}

function locate(pointer: string): Located {
  let node: Json = doc;
  for (const key of pointer
    .split("/")
    .slice(1)
    .map((k) => k.replaceAll("~1", "/").replaceAll("~0", "~"))) {
    node = isObject(node) ? (node[key] ?? null) : null;
  }
  if (!isObject(node)) throw new Error(`openapi.json has nothing at ${pointer}`);
  const ref = node.$ref;
  return typeof ref === "string" && ref.startsWith("#/") ? locate(ref.slice(1)) : { node, pointer };
}

const validators = new Map<string, ValidateFunction>();
function validatorAt(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) validators.set(pointer, (validate = ajv.compile({ $ref: `${DOC_ID}#${pointer}` })));
  return validate;
}

const UNKNOWN_PATH = "/x-unmatched-requests/unknownPath/responses";

/** The pointer of the responses map that applies to this path (below any base path) and method. */
function responsesFor(path: string, method: string): string {
  const paths = doc.paths as JsonObject;
  const template = Object.keys(paths).find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path));
  if (template === undefined) return UNKNOWN_PATH;
  const item = paths[template] as JsonObject;
  const operation = isObject(item[method]) ? method : method === "head" && isObject(item.get) ? "get" : undefined;
  return operation ? `/paths/${escapePointer(template)}/${operation}/responses` : "/x-unmatched-requests/otherMethod/responses";
}

/** The body as text, gzip or br decoded first (docs/api.md, "HTTP behaviour"); a HEAD answer's is empty. */
async function decodedText(res: Response): Promise<string> {
  const bytes = new Uint8Array(await res.clone().arrayBuffer());
  const coding = res.headers.get("content-encoding");
  const plain = bytes.byteLength === 0 ? bytes : coding === "gzip" ? gunzipSync(bytes) : coding === "br" ? brotliDecompressSync(bytes) : bytes;
  return new TextDecoder().decode(plain);
}

/** Every way `res` departs from what the document says `req` may be answered; empty when it conforms. */
export async function departuresFromDocument(req: { method: string; url: string }, res: Response, basePath = ""): Promise<string[]> {
  const { pathname } = new URL(req.url);
  // A 304 answers a conditional GET for the 200 the client already holds (RFC 9110
  // §15.4.5; docs/api.md, "HTTP behaviour"): no body, nothing of its own to check.
  if (res.status === 304) return [];
  const underBase = basePath === "" || pathname.startsWith(`${basePath}/`);
  const responses = locate(underBase ? responsesFor(pathname.slice(basePath.length), req.method.toLowerCase()) : UNKNOWN_PATH);
  if (!isObject(responses.node[String(res.status)])) {
    return [`status ${res.status} is not documented at ${responses.pointer}`];
  }
  const response = locate(`${responses.pointer}/${res.status}`);
  const problems: string[] = [];

  for (const name of Object.keys(isObject(response.node.headers) ? response.node.headers : {})) {
    const header = locate(`${response.pointer}/headers/${escapePointer(name)}`);
    const value = res.headers.get(name);
    if (value === null) {
      if (header.node.required === true) problems.push(`required header ${name} is missing`);
      continue;
    }
    if (!isObject(header.node.schema)) continue;
    const validate = validatorAt(`${header.pointer}/schema`);
    const typed = (header.node.schema as JsonObject).type === "integer" && /^\d+$/.test(value) ? Number(value) : value;
    if (!validate(typed)) problems.push(`header ${name}: ${value}: ${ajv.errorsText(validate.errors)}`);
  }

  const body = await decodedText(res);
  if (req.method === "HEAD") {
    if (body !== "") problems.push("a HEAD answer has a body");
    return problems;
  }
  const content = isObject(response.node.content) ? response.node.content : {};
  const mediaType = (res.headers.get("content-type") ?? "").split(";")[0]!.trim();
  if (!isObject(content[mediaType])) return [...problems, `Content-Type ${mediaType || "(none)"} is not documented (${Object.keys(content).join(", ")})`];
  const validate = validatorAt(`${response.pointer}/content/${escapePointer(mediaType)}/schema`);
  let value: unknown = body;
  if (mediaType === "application/json") {
    try {
      value = JSON.parse(body);
    } catch {
      return [...problems, "the body is not JSON"];
    }
  }
  if (!validate(value)) problems.push(`body: ${ajv.errorsText(validate.errors)}: ${JSON.stringify(validate.errors)}`);
  return problems;
}

/** The handler, answering exactly as before, but throwing when an answer departs from the document. */
export function conformToDocument(handler: Handler, basePath = ""): Handler {
  return async (req, info) => {
    const { method, url } = req;
    const res = await handler(req, info);
    const problems = await departuresFromDocument({ method, url }, res, basePath);
    if (problems.length > 0) {
      const path = new URL(url).pathname;
      throw new Error(`${method} ${path} answered ${res.status}, which does not match openapi.json:\n  ${problems.join("\n  ")}`);
    }
    return res;
  };
}

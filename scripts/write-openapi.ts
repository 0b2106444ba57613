#!/usr/bin/env bun
/**
 * `npm run openapi`: writes the OpenAPI document, generated from the valibot schemas, to
 * openapi.json at the repository root. Run it after changing a schema, parameter or
 * operation and commit the file; test/openapi.test.ts fails while the two differ, and
 * test/openapi-lint.e2e.test.ts lints the committed file with Redocly.
 */
import { writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { renderOpenApiJson } from "../server/openapi.ts";

const target = join(import.meta.dir, "../openapi.json");
const text = renderOpenApiJson();
writeFileSync(target, text);
console.log(`${relative(process.cwd(), target) || target}: ${text.length} bytes`);

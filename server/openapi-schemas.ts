/**
 * valibot → JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it) with @valibot/to-json-schema:
 * the component schemas from lib/api-schemas.ts and the parameters from the very schemas
 * lib/request-params.ts validates requests with, so the document cannot drift from the code.
 *
 * Conversion throws on anything it cannot express, except a `check`: that is custom code,
 * so its pipe must carry `v.metadata` stating the constraint as JSON Schema keywords, and
 * `assertChecksDocumented` refuses a pipe that does not.
 */
import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig, type JsonSchema } from "@valibot/to-json-schema";
import type { GenericSchema } from "valibot";
import { API_SCHEMAS } from "../lib/api-schemas.ts";

export type ComponentName = keyof typeof API_SCHEMAS;

/**
 * `v.nullable(x)` as OpenAPI 3.1 usually says it, `type: [x's type, "null"]` (with `null`
 * among an enum's values), rather than `anyOf: [x, {type: "null"}]`: the same values, and
 * the form renderers understand (Scalar rejects a `{type: "null"}` branch). Anything
 * without one plain type, such as a $ref, keeps the anyOf.
 */
function nullableAsTypeArray(jsonSchema: JsonSchema): JsonSchema | undefined {
  const [inner, nullBranch, ...rest] = jsonSchema.anyOf ?? [];
  if (rest.length > 0 || typeof inner !== "object" || typeof nullBranch !== "object" || nullBranch.type !== "null") return undefined;
  if (typeof inner.type !== "string" || "$ref" in inner || "const" in inner) return undefined;
  const { anyOf: _anyOf, ...outer } = jsonSchema;
  return { ...inner, ...outer, type: [inner.type, "null"], ...(inner.enum ? { enum: [...inner.enum, null] } : {}) };
}

const CONVERSION: ConversionConfig = {
  target: "draft-2020-12",
  // Parameters are documented as the client sends them: conversion stops at the first transform.
  typeMode: "input",
  errorMode: "throw",
  overrideAction: ({ valibotAction, jsonSchema }) => (valibotAction.type === "check" ? jsonSchema : undefined),
  overrideSchema: ({ valibotSchema, jsonSchema }) => (valibotSchema.type === "nullable" ? nullableAsTypeArray(jsonSchema) : undefined),
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
};

/** Keywords that only describe; metadata made only of these states no constraint. */
const ANNOTATIONS = new Set(["title", "description", "examples"]);

/** The parts of a valibot schema or action this walk reads (they are plain objects). */
interface SchemaNode {
  kind: string;
  type: string;
  pipe?: readonly SchemaNode[];
  entries?: Record<string, SchemaNode>;
  wrapped?: SchemaNode;
  item?: SchemaNode;
  options?: readonly unknown[];
  metadata?: Record<string, unknown>;
}

const flatten = (pipe: readonly SchemaNode[]): SchemaNode[] => pipe.flatMap((item) => (item.pipe ? flatten(item.pipe) : [item]));

/** Throws unless every pipe with a `check` also has metadata that states a JSON Schema constraint. */
export function assertChecksDocumented(schema: GenericSchema, where: string): void {
  const visit = (node: SchemaNode, path: string): void => {
    if (node.pipe) {
      const items = flatten(node.pipe);
      const states = items.some((a) => a.type === "metadata" && Object.keys(a.metadata ?? {}).some((k) => !ANNOTATIONS.has(k)));
      if (items.some((a) => a.type === "check") && !states) {
        throw new Error(`${path}: a v.check() has no JSON Schema form; add v.metadata({...}) stating the constraint for the OpenAPI document`);
      }
      // A pipe's first item is the schema it wraps, so this also reaches its entries.
      for (const item of items) if (item.kind === "schema") visit(item, path);
      return;
    }
    for (const [key, entry] of Object.entries(node.entries ?? {})) visit(entry, `${path}.${key}`);
    if (node.wrapped) visit(node.wrapped, path);
    if (node.item) visit(node.item, `${path}[]`);
    for (const option of node.options ?? []) if (typeof option === "object" && option !== null) visit(option as SchemaNode, path);
  };
  visit(schema as unknown as SchemaNode, where);
}

/** components.schemas: every body schema, referring to the others by `#/components/schemas/<name>`. */
export function componentSchemas(): Record<ComponentName, JsonSchema> {
  for (const [name, schema] of Object.entries(API_SCHEMAS)) assertChecksDocumented(schema, name);
  return toJsonSchemaDefs(API_SCHEMAS, CONVERSION);
}

/** One schema on its own, without the `$schema` keyword a component or parameter must not repeat. */
export function convert(schema: GenericSchema, where: string): JsonSchema {
  assertChecksDocumented(schema, where);
  const { $schema: _dialect, ...json } = toJsonSchema(schema, CONVERSION);
  return json;
}

export interface ParameterObject {
  name: string;
  in: "query" | "path";
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

/**
 * The query parameters of an endpoint from its valibot object schema: required unless
 * optional, the description lifted to the parameter, and a default documented as the value
 * it stands for (query values arrive as strings, so the schema's default is the string "100").
 */
export function queryParameters(schema: GenericSchema, where: string): ParameterObject[] {
  const object = convert(schema, where);
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property as JsonSchema;
    if (rest.type === "integer" && typeof rest.default === "string") rest.default = Number(rest.default);
    return { name, in: "query", required: required.has(name), ...(description ? { description } : {}), schema: rest };
  });
}

/** A path parameter from the valibot schema that checks it. */
export function pathParameter(name: string, schema: GenericSchema): ParameterObject {
  const { description, ...rest } = convert(schema, `{${name}}`);
  return { name, in: "path", required: true, ...(description ? { description } : {}), schema: rest };
}

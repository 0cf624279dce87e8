// Generates the OpenAPI 3.1 document from the route table: request bodies from the GraphQL input types
// of the routes' variables, responses from the documents' selection sets.
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  typeFromAST,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import type { CompiledRoute } from "./adapter.ts";

type JsonSchema = Record<string, unknown>;

const SCALARS: Record<string, JsonSchema> = {
  String: { type: "string" },
  ID: { type: "string" },
  Int: { type: "integer" },
  Float: { type: "number" },
  Boolean: { type: "boolean" },
  DateTime: { type: "string", format: "date-time" },
  Bytes: { type: "integer", minimum: 0 },
  EnvVars: { type: "object", additionalProperties: { type: "string" } },
  Formation: { type: "object", additionalProperties: { type: "integer", minimum: 0 } },
};

function nullable(schema: JsonSchema): JsonSchema {
  return { anyOf: [schema, { type: "null" }] };
}

function inputSchema(type: GraphQLInputType): JsonSchema {
  if (isNonNullType(type)) return inputSchema(type.ofType);
  if (isListType(type)) return { type: "array", items: inputSchema(type.ofType) };
  if (isEnumType(type)) return { type: "string", enum: type.getValues().map((v) => v.value) };
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    return {
      type: "object",
      additionalProperties: false,
      ...(type.description ? { description: type.description } : {}),
      properties: Object.fromEntries(fields.map((f) => [f.name, { ...inputSchema(f.type), ...(f.description ? { description: f.description } : {}) }])),
      required: fields.filter((f) => isNonNullType(f.type)).map((f) => f.name),
    };
  }
  return SCALARS[type.name] ?? {};
}

/** JSON schemas of what a document selects; on unions only the non-error members (errors are 4xx bodies). */
function selectionSchemas(schema: GraphQLSchema, fragments: Map<string, FragmentDefinitionNode>) {
  const isErrorType = (name: string) => {
    const type = schema.getType(name);
    return name === "Error" || (isObjectType(type) && type.getInterfaces().some((i) => i.name === "Error"));
  };

  function objectSchema(typeName: string, selectionSet: SelectionSetNode, description?: string): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const collect = (set: SelectionSetNode, onType: string) => {
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          const type = schema.getType(onType);
          if (selection.name.value === "__typename" || !isObjectType(type)) continue;
          const field = type.getFields()[selection.name.value];
          properties[selection.alias?.value ?? selection.name.value] = outputSchema(field.type, selection.selectionSet);
        } else {
          const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value)!;
          const target = fragment.typeCondition?.name.value ?? onType;
          if (!isErrorType(target)) collect(fragment.selectionSet, target);
        }
      }
    };
    collect(selectionSet, typeName);
    return { type: "object", ...(description ? { description } : {}), properties, required: Object.keys(properties) };
  }

  function outputSchema(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined): JsonSchema {
    const inner = getNullableType(type);
    let result: JsonSchema;
    if (isListType(inner)) result = { type: "array", items: outputSchema(inner.ofType, selectionSet) };
    else if (isScalarType(inner)) result = SCALARS[inner.name] ?? {};
    else if (isEnumType(inner)) result = { type: "string", enum: inner.getValues().map((v) => v.value) };
    else result = objectSchema(getNamedType(inner).name, selectionSet!, inner.description ?? undefined);
    return isNonNullType(type) ? result : nullable(result);
  }

  return outputSchema;
}

const errorBody: JsonSchema = {
  type: "object",
  properties: {
    error: {
      type: "object",
      properties: {
        code: { type: "string", description: "Stable snake_case code" },
        message: { type: "string", description: "A sentence a person can act on" },
        details: { type: "object", description: "For invalid_request: `fields` maps each bad field to a message" },
      },
      required: ["code", "message"],
    },
  },
  required: ["error"],
};

const MULTIPART_FILE: JsonSchema = {
  type: "object",
  properties: { file: { type: "string", contentMediaType: "application/octet-stream", description: "The file, in a part named file" } },
  required: ["file"],
};

export function buildOpenApi(schema: GraphQLSchema, compiled: CompiledRoute[], publicUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { route, document } of compiled) {
    const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
    const outputSchema = selectionSchemas(schema, fragmentMap(document));
    const root = operation.operation === "query" ? schema.getQueryType()! : schema.getMutationType()!;
    const rootSelection = operation.selectionSet.selections[0];
    const rootField = rootSelection.kind === Kind.FIELD ? root.getFields()[rootSelection.name.value] : undefined;
    const bodyVariable = operation.variableDefinitions?.find((v) => v.variable.name.value === route.input);
    const bodyType = bodyVariable ? (typeFromAST(schema, bodyVariable.type as never) as GraphQLInputType | undefined) : undefined;
    const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const status = String(route.status ?? 200);
    const url = route.path.replace(/:(\w+)/g, "{$1}");
    paths[url] ??= {};
    paths[url][route.method.toLowerCase()] = {
      tags: [route.tag],
      summary: route.summary,
      operationId: operation.name?.value,
      "x-graphql-operation": operation.name?.value,
      parameters: pathParams.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } })),
      ...(bodyType ? { requestBody: { required: true, content: { "application/json": { schema: inputSchema(bodyType) } } } } : {}),
      ...(route.upload ? { requestBody: { required: true, content: { "multipart/form-data": { schema: MULTIPART_FILE } } } } : {}),
      responses: {
        [status]:
          status === "204" || !rootField
            ? { description: "Done" }
            : {
                description: rootField.description ?? route.summary,
                content: { "application/json": { schema: outputSchema(rootField.type, rootSelection.kind === Kind.FIELD ? rootSelection.selectionSet : undefined) } },
              },
        "4XX": { description: "The contract's error body", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
      },
    };
  }
  // The one route that is no GraphQL operation: public content, by redirect (server/http/cdn.ts).
  paths["/api/cdn/{id}"] ??= {};
  paths["/api/cdn/{id}"].get = {
    tags: ["cdn"],
    summary: "A file's content, for anyone without signing in: 302 to it (a presigned URL on S3, the platform's content path on local disk)",
    operationId: "FileContent",
    parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
    responses: {
      "302": { description: "`Location` serves the content with its type, length, strong ETag, Range support and immutable caching" },
      "4XX": { description: "The contract's error body", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
    },
  };
  return {
    openapi: "3.1.0",
    info: { title: "Slipway API", version: "1", description: "Every route runs a GraphQL operation of the schema served at /graphql." },
    servers: [{ url: publicUrl }],
    components: {
      schemas: { Error: errorBody },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An OAuth access token" },
        session: { type: "apiKey", in: "cookie", name: "slipway_session" },
      },
    },
    security: [{ bearer: [] }, { session: [] }],
    paths,
  };
}

function fragmentMap(document: DocumentNode) {
  return new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
  );
}

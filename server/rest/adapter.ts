// Registers the route table: each request becomes variables for the route's GraphQL document, which
// was parsed, validated and compiled (graphql/compiled.ts) once at boot, and runs with the request's context.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isObjectType, parse, type DocumentNode, type GraphQLError, type GraphQLSchema } from "graphql";
import { compileOperation, type RunOperation } from "../graphql/compiled.ts";
import {
  AppError,
  errorFromCode,
  InvalidRequestError,
  toAppError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
} from "../errors.ts";
import { fixedDocumentProblems } from "../graphql/limits.ts";
import { contextFor } from "../http/context.ts";
import type { Platform } from "../platform/index.ts";
import { withFragments } from "./fragments.ts";
import { uploadTooLarge } from "../services/uploads.ts";
import { routes } from "./routes.ts";
import type { RestRoute } from "./types.ts";

export interface CompiledRoute {
  route: RestRoute;
  document: DocumentNode;
  run: RunOperation;
  /** False when graphql-jit refused the document (it then runs through graphql-js). */
  compiled: boolean;
}

export function compileRoutes(schema: GraphQLSchema, options = { jit: true }): CompiledRoute[] {
  return routes.map((route) => {
    const document = parse(withFragments(route.document));
    // Within what a client's operation may ask for, and counted as one request (as the guard counts it).
    const problems = fixedDocumentProblems(schema, document);
    if (problems.length) throw new Error(`REST route ${route.method} ${route.path}: ${problems.join("; ")}`);
    return { route, document, ...compileOperation(schema, document, null, options) };
  });
}

export function registerRestRoutes(app: FastifyInstance, platform: Platform, schema: GraphQLSchema, compiled: CompiledRoute[]) {
  const errorTypes = new Set(
    Object.values(schema.getTypeMap())
      .filter((t) => isObjectType(t) && t.getInterfaces().some((i) => i.name === "Error"))
      .map((t) => t.name),
  );

  for (const { route, run } of compiled) {
    app.route({
      method: route.method,
      url: route.path,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        if (route.input && request.body !== undefined && !isJson(request.headers["content-type"])) {
          throw new UnsupportedMediaTypeError("Send the body as JSON with Content-Type: application/json.");
        }
        const parts = { params: request.params as Record<string, string>, query: request.query as Record<string, string>, body: request.body };
        const uploadId = route.upload ? await receiveUpload(request, platform, route.stream ?? false) : undefined;
        const variableValues = {
          ...(route.variables ? route.variables(parts) : parts.params),
          ...(route.input ? { [route.input]: request.body ?? null } : {}),
          ...(route.upload ? { [route.upload]: uploadId } : {}),
        };
        let result;
        try {
          result = await run(variableValues, contextFor(platform, request, reply));
        } finally {
          if (uploadId) await platform.services.uploads.discard(uploadId);
          // A streamed upload refused before its end (quota, size): the rest of the body is not read, and the
          // connection closes after the answer, so the client stops sending.
          if (route.stream && !request.raw.complete) {
            reply.header("Connection", "close");
            request.raw.resume();
          }
        }
        if (result.errors?.length) throw fromGraphQLError(result.errors[0]);
        const value = Object.values(result.data ?? {})[0];
        const domainError = asDomainError(value, errorTypes);
        if (domainError) throw domainError;
        if (route.status === 204) return reply.status(204).send();
        return reply.status(route.status ?? 200).send(withoutTypename(successData(value)));
      },
    });
  }
}

/** Room for the multipart framing around the file itself. */
const MULTIPART_OVERHEAD = 64 * 1024;

/**
 * The request's `file` part, within the caller's maxUploadBytes: streamed to disk (staged), or offered live to
 * the operation (`stream`); answers the upload's id.
 */
async function receiveUpload(request: FastifyRequest, platform: Platform, stream: boolean): Promise<string> {
  const viewer = request.auth?.viewer;
  if (!viewer) throw request.auth?.error ?? new UnauthenticatedError();
  const what = stream ? "file" : "zip";
  if (!request.isMultipart()) throw new UnsupportedMediaTypeError(`Send the ${what} as multipart/form-data, in a part named file.`);
  const maxBytes = Number((await platform.services.accounts.quotaOf(viewer.user.id)).maxUploadBytes);
  const declared = request.headers["content-length"] === undefined ? null : Number(request.headers["content-length"]);
  if (declared !== null && declared > maxBytes + MULTIPART_OVERHEAD) throw uploadTooLarge(maxBytes);
  const part = await request.file({ limits: { fileSize: maxBytes, files: 1, fields: 10 } });
  if (!part || part.fieldname !== "file") throw new InvalidRequestError(`Send the ${what} in a multipart part named file.`, { file: "Required." });
  if (!stream) return (await platform.services.uploads.stage(viewer.user.id, part.file, maxBytes)).id;
  return platform.services.uploads.offer({
    userId: viewer.user.id,
    stream: part.file,
    fileName: part.filename,
    contentType: part.mimetype,
    declaredBytes: Number.isSafeInteger(declared) ? declared : null,
    maxBytes,
  });
}

function isJson(contentType: string | undefined): boolean {
  return /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType ?? "");
}

function asDomainError(value: unknown, errorTypes: Set<string>): AppError | null {
  const v = value as { __typename?: string; code?: string; message?: string; httpStatus?: number; fields?: { field: string; message: string }[] } | null;
  if (!v || typeof v !== "object" || !v.__typename || !errorTypes.has(v.__typename)) return null;
  const fields = v.fields ? Object.fromEntries(v.fields.map((f) => [f.field, f.message])) : undefined;
  return errorFromCode(v.code!, v.message!, v.httpStatus!, fields);
}

function withoutTypename(value: unknown): unknown {
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  const { __typename: _, ...rest } = value as Record<string, unknown>;
  return rest;
}

// `Variable "$input" got invalid value 5 at "input.email"; String cannot represent a non string value: 5`
const AT_FIELD = /at "[^".]+\.([^"]+)"; (.*)$/;
const MISSING_FIELD = /Field "([^"]+)" of required type "[^"]+" was not provided/;
const UNKNOWN_FIELD = /Field "([^"]+)" is not defined by type/;

/** A GraphQL error from the route's execution, as the contract's error. */
function fromGraphQLError(error: GraphQLError): AppError {
  if (error.path) return toAppError(error.originalError ?? error);
  // No path: the error came before execution, from variables (the body or parameters) that do not fit.
  const message = error.message;
  const at = AT_FIELD.exec(message);
  if (at) return new InvalidRequestError(`Check ${at[1]}: ${at[2]}`, { [at[1]]: at[2] });
  const missing = MISSING_FIELD.exec(message);
  if (missing) return new InvalidRequestError(`${missing[1]} is required.`, { [missing[1]]: "This field is required." });
  const unknown = UNKNOWN_FIELD.exec(message);
  if (unknown) return new InvalidRequestError(`${unknown[1]} is not a field this route accepts.`, { [unknown[1]]: "Unknown field." });
  if (/was not provided|to be an object|must not be null/.test(message)) return new InvalidRequestError("Send a JSON object as the request body.");
  return new InvalidRequestError(message.replace(/^Variable "\$\w+" got invalid value .*?; /, ""));
}

/** A mutation with errors that answers a list wraps it ({__typename: "…Success", data: […]}): REST answers the list. */
function successData(value: unknown): unknown {
  const wrapped = value as { __typename?: string; data?: unknown } | null;
  return typeof wrapped?.__typename === "string" && wrapped.__typename.endsWith("Success") && "data" in wrapped ? wrapped.data : value;
}

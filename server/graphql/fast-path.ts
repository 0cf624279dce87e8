// A JSON POST to /graphql whose document this server has already parsed and validated runs straight from the
// Node request. Yoga's Fetch-API pipeline (a Request built from the Node request, a dozen plugin hooks, a
// Response copied back into Fastify's reply) costs several times the operation itself. What yoga does for such
// a request is done here the same way: the same context, the same validation rules (the caller's), the
// operation limits (cost, its charge on the rate limit), compiled execution, error masking, and yoga's own
// result processor for the status, headers and body. Anything else goes to yoga, which answers it as before:
// GET, an Accept header yoga would answer with a stream (or 406), parameters yoga refuses, documents that do
// not parse or validate, an operation name that selects nothing, subscriptions.
import type { FastifyReply, FastifyRequest } from "fastify";
import {
  getOperationAST,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLSchema,
} from "graphql";
import { processRegularResult } from "graphql-yoga";
import type { RateLimitCount } from "../http/rate-limit.ts";
import { compileOperation, type CompiledOperation } from "./compiled.ts";
import type { Context } from "./context.ts";
import { admitCost, limitRules, operationCost, refusalResult, withChargeHeaders } from "./limits.ts";

export interface FastPathOptions {
  schema: GraphQLSchema;
  /** Documents kept (most recently used); a client sending ever-new documents costs a parse each, never memory. */
  maxDocuments: number;
  maxTokens: number;
  jit: boolean;
  /** Whether this caller's documents are validated without introspection (production, anonymous). */
  introspectionRefused(request: FastifyRequest): boolean;
  context(request: FastifyRequest, reply: FastifyReply): Context;
  charge(context: Context, requests: number): Promise<RateLimitCount>;
  formatError(error: unknown): GraphQLError;
}

interface Params {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

interface KnownDocument {
  /** Null when the text does not parse (yoga answers the syntax error). */
  document: DocumentNode | null;
  /** Whether it validates: with introspection allowed [0], refused [1]; undefined until asked. */
  valid: [boolean?, boolean?];
  /** By operation name ("" for none): null when the name selects no query or mutation. */
  operations: Map<string, CompiledOperation | null>;
}

const PARAMETERS = new Set(["query", "operationName", "variables", "extensions"]);
/** Longer documents (none of the dashboard's comes near) are left to yoga rather than kept here. */
const MAX_QUERY_LENGTH = 32 * 1024;

export interface FastPath {
  /** Answers the request and returns true, or returns false having done nothing (yoga answers it). */
  handle(request: FastifyRequest, reply: FastifyReply): Promise<boolean>;
  /** How many requests it answered (tests check which path a request took). */
  readonly answered: number;
}

export function graphqlFastPath(options: FastPathOptions): FastPath {
  let answered = 0;
  const known = new Map<string, KnownDocument>();
  const rules = [[...specifiedRules, ...limitRules], [...specifiedRules, ...limitRules, NoSchemaIntrospectionCustomRule]];

  function knownDocument(query: string): KnownDocument {
    let entry = known.get(query);
    if (entry) {
      known.delete(query); // the most recently used goes last
    } else {
      if (known.size >= options.maxDocuments) known.delete(known.keys().next().value!);
      let document: DocumentNode | null = null;
      try {
        document = parse(query, { maxTokens: options.maxTokens });
      } catch {
        // yoga answers the syntax error
      }
      entry = { document, valid: [], operations: new Map() };
    }
    known.set(query, entry);
    return entry;
  }

  function operationOf(entry: KnownDocument, document: DocumentNode, name: string | null | undefined): CompiledOperation | null {
    let operation = entry.operations.get(name ?? "");
    if (operation === undefined) {
      const kind = getOperationAST(document, name)?.operation;
      operation = kind === "query" || kind === "mutation" ? compileOperation(options.schema, document, name, { jit: options.jit }) : null;
      entry.operations.set(name ?? "", operation);
    }
    return operation;
  }

  async function execute(document: DocumentNode, operation: CompiledOperation, params: Params, context: Context): Promise<ExecutionResult> {
    try {
      const args = { schema: options.schema, document, operationName: params.operationName, variableValues: params.variables, contextValue: context };
      const verdict = await admitCost(operationCost(args), (requests) => options.charge(context, requests));
      if (verdict?.refusal) return refusalResult(options.formatError, verdict, true);
      let result = await operation.run(params.variables ?? undefined, context);
      if (verdict) result = withChargeHeaders(result, verdict.headers);
      return result.errors ? { ...result, errors: result.errors.map(options.formatError) } : result;
    } catch (error) {
      return { errors: [options.formatError(error)] };
    }
  }

  async function handle(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    if (request.method !== "POST") return false;
    const params = paramsOf(request.body);
    const mediaType = params && jsonMediaType(request.headers.accept);
    if (!params || !mediaType) return false;
    const entry = knownDocument(params.query);
    const document = entry.document;
    if (!document) return false;
    const refused = options.introspectionRefused(request) ? 1 : 0;
    entry.valid[refused] ??= validate(options.schema, document, rules[refused]).length === 0;
    const operation = entry.valid[refused] ? operationOf(entry, document, params.operationName) : null;
    if (!operation) return false;

    const result = await execute(document, operation, params, options.context(request, reply));
    const response = processRegularResult(result, bodyAndInit, mediaType) as unknown as BodyAndInit;
    reply.status(response.init.status);
    for (const [name, value] of Object.entries(response.init.headers)) reply.header(name.toLowerCase(), value);
    reply.send(response.body);
    answered += 1;
    return true;
  }

  return {
    handle,
    get answered() {
      return answered;
    },
  };
}

/** The parameters yoga takes as they are; null for anything yoga would refuse or treat otherwise. */
function paramsOf(body: unknown): Params | null {
  if (!isPlainObject(body)) return null;
  for (const key in body) if (!PARAMETERS.has(key)) return null;
  const { query, operationName, variables, extensions } = body;
  if (typeof query !== "string" || query === "" || query.length > MAX_QUERY_LENGTH) return null;
  if (operationName != null && typeof operationName !== "string") return null;
  if (variables != null && !isPlainObject(variables)) return null;
  if (extensions != null && !isPlainObject(extensions)) return null;
  return { query, operationName: operationName as string | null | undefined, variables: variables as Params["variables"] };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const REGULAR = ["application/graphql-response+json", "application/json"];
const mediaTypes = new Map<string, string | null>();

/**
 * The media type yoga's result processors answer a single result with for this Accept header, when it is
 * one of the regular JSON ones (not an event stream, not multipart, not 406); null otherwise. Yoga's own
 * choice (graphql-yoga's result-processor/accept.js and use-result-processor.js): the last match wins,
 * the regular processor's types last.
 */
function jsonMediaType(accept: string | undefined): string | null {
  const header = accept ?? "";
  let chosen = mediaTypes.get(header);
  if (chosen !== undefined) return chosen;
  const asked = (header || "*/*")
    .replace(/\s/g, "")
    .toLowerCase()
    .split(",")
    .filter((item) => {
      const [, ...parameters] = item.split(";");
      return (parameters.find((p) => p.includes("charset=")) ?? "charset=utf-8") === "charset=utf-8";
    })
    .map((item) => item.split(";")[0])
    .reverse();
  chosen = null;
  for (const type of asked) for (const regular of REGULAR) if (matches(regular, type)) chosen = regular;
  if (mediaTypes.size < 100) mediaTypes.set(header, chosen);
  return chosen;
}

function matches(processorType: string, askedType: string): boolean {
  const [pre, suf] = processorType.split("/");
  const [askedPre, askedSuf] = askedType.split("/");
  return (askedPre === "*" || askedPre === pre) && (askedSuf === "*" || askedSuf === suf);
}

interface BodyAndInit {
  body: string | null;
  init: { status: number; headers: Record<string, string> };
}

/** Yoga's result processor builds a Fetch Response through this; here it only keeps what it was given. */
const bodyAndInit = {
  Response: class {
    constructor(
      public body: string | null,
      public init: BodyAndInit["init"],
    ) {}
  },
} as unknown as Parameters<typeof processRegularResult>[1];

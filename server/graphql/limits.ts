// What one GraphQL operation may ask for, over HTTP and WebSocket alike (one envelop plugin in yoga's pipeline):
// - aliases and depth (graphql-armor rules), checked at validation, so they are cached with the document;
// - cost (Pothos complexity: each field 1, a paged list's selection times the page size asked for, plus 10 for
//   its read), measured before execution, when the variables are known; past MAX_COST it is refused;
// - that cost is charged against the caller's rate limit: an operation counts ceil(cost / COST_PER_REQUEST)
//   requests. The guard (or the WebSocket subscribe) already counted the request once; the rest is charged here,
//   once and all or nothing, and is refused with 429 when it does not fit. The dashboard's and the REST routes'
//   operations cost less than one request (the REST routes, which do not run through yoga, are checked at boot).
// Refusals are the contract's errors: invalid_request naming the limit and its value, or rate_limited.
import { maxAliasesRule } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthRule } from "@escape.tech/graphql-armor-max-depth";
import { complexityFromQuery } from "@pothos/plugin-complexity";
import { GraphQLError, Kind, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode, type ValidationRule } from "graphql";
import { specifiedRules, validate } from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";
import { InvalidRequestError, RateLimitedError, type AppError } from "../errors.ts";
import type { RateLimitCount } from "../http/rate-limit.ts";
import type { Context } from "./context.ts";

export const OPERATION_LIMITS = { maxAliases: 15, maxDepth: 10, maxCost: 5_000, costPerRequest: 1_000 };

const withoutPrefix = (error: GraphQLError) => new GraphQLError(error.message.replace(/^Syntax Error: /, ""));

/** The alias and depth rules, reporting like any validation rule ("Aliases limit of 15 exceeded, found 16."). */
export const limitRules: ValidationRule[] = [
  maxAliasesRule({ n: OPERATION_LIMITS.maxAliases, propagateOnRejection: false, onReject: [(ctx, e) => ctx?.reportError(withoutPrefix(e))] }),
  maxDepthRule({ n: OPERATION_LIMITS.maxDepth, propagateOnRejection: false, onReject: [(ctx, e) => ctx?.reportError(withoutPrefix(e))] }),
];

/**
 * The cost of the operation `args` selects, or null when its variables do not fit (execution refuses those
 * with a clear message of its own).
 */
export function operationCost(args: Pick<ExecutionArgs, "schema" | "document" | "operationName" | "variableValues" | "contextValue">): number | null {
  const operations = args.document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const operation = args.operationName ? operations.find((o) => o.name?.value === args.operationName) : operations[0];
  if (!operation) return null;
  // Without variables nothing but the document decides the cost (the fields' costs depend on their arguments
  // only): measured once per document and operation.
  if (operation.variableDefinitions?.length) return measure(args, operation);
  let costs = staticCosts.get(args.document);
  if (!costs) staticCosts.set(args.document, (costs = new Map()));
  let cost = costs.get(operation);
  if (cost === undefined) costs.set(operation, (cost = measure(args, operation)));
  return cost;
}

const staticCosts = new WeakMap<DocumentNode, Map<OperationDefinitionNode, number | null>>();

function measure(args: Pick<ExecutionArgs, "schema" | "document" | "variableValues" | "contextValue">, operation: OperationDefinitionNode): number | null {
  // Pothos measures a document's first operation: give it the selected one (with the fragments).
  const document: DocumentNode = { ...args.document, definitions: args.document.definitions.filter((d) => d.kind !== Kind.OPERATION_DEFINITION || d === operation) };
  try {
    return complexityFromQuery(document, { schema: args.schema, ctx: args.contextValue as object, variables: args.variableValues ?? {} }).complexity;
  } catch (error) {
    if (error instanceof GraphQLError) return null;
    throw error;
  }
}

export function costProblem(cost: number): InvalidRequestError | null {
  if (cost <= OPERATION_LIMITS.maxCost) return null;
  return new InvalidRequestError(
    `This operation costs ${cost}, more than the limit of ${OPERATION_LIMITS.maxCost} per operation. Ask for fewer items (first) or fewer fields.`,
  );
}

/**
 * For documents fixed in code (the REST routes, run without yoga): every problem, limits included, and a cost
 * over one request. Their variables come from requests, and none sets a page size, so defaults measure them.
 */
export function fixedDocumentProblems(schema: GraphQLSchema, document: DocumentNode): string[] {
  const problems = validate(schema, document, [...specifiedRules, ...limitRules]).map((e) => e.message);
  if (problems.length) return problems;
  const unbound = { ...document, definitions: document.definitions.map((d) => (d.kind === Kind.OPERATION_DEFINITION ? { ...d, variableDefinitions: [] } : d)) };
  const cost = operationCost({ schema, document: unbound });
  return cost !== null && cost <= OPERATION_LIMITS.costPerRequest ? [] : [`it costs ${cost}, more than one request (${OPERATION_LIMITS.costPerRequest})`];
}

/** How many requests an operation of this cost counts as (at least one). */
export function requestsFor(cost: number): number {
  return Math.max(1, Math.ceil(cost / OPERATION_LIMITS.costPerRequest));
}

function costRefusal(cost: number, requests: number, limit: number, retryAfter: number): RateLimitedError {
  const counts = `this operation costs ${cost} and so counts as ${requests} requests (one per ${OPERATION_LIMITS.costPerRequest} of cost)`;
  if (requests > limit) {
    return new RateLimitedError(retryAfter, `Too many requests: ${counts}, more than your limit of ${limit} per minute. Ask for fewer items (first) or fewer fields.`);
  }
  return new RateLimitedError(
    retryAfter,
    `Too many requests: ${counts} against your limit of ${limit} per minute. Try again in ${retryAfter} seconds, or ask for fewer items (first) or fewer fields.`,
  );
}

/** Null to go ahead; else the refusal, or the headers a costly operation's HTTP answer carries. */
export interface Verdict {
  refusal: AppError | null;
  headers: Record<string, string>;
}

/**
 * What an operation of this cost (null: its variables do not fit) may do: refused past MAX_COST, or charged
 * `requests - 1` more against the caller's rate limit (the guard counted one), all or nothing.
 */
export async function admitCost(cost: number | null, charge: (requests: number) => Promise<RateLimitCount>): Promise<Verdict | null> {
  if (cost === null) return null;
  const tooCostly = costProblem(cost);
  if (tooCostly) return { refusal: tooCostly, headers: {} };
  const requests = requestsFor(cost);
  if (requests === 1) return null;
  const count = await charge(requests - 1);
  const refusal = count.refusal && costRefusal(cost, requests, count.limit, count.retryAfterSeconds);
  const headers = { "RateLimit-Remaining": String(count.remaining), "RateLimit-Reset": String(count.resetSeconds), ...refusal?.headers };
  return { refusal, headers };
}

/**
 * Over HTTP, yoga answers with the status and headers in `extensions.http` and leaves them out of the body: 429
 * and Retry-After as the guard's refusals; a cost refusal is answered like the validation errors.
 */
export function refusalResult(formatError: (error: unknown) => GraphQLError, { refusal, headers }: Verdict, http: boolean): ExecutionResult {
  const error = formatError(refusal);
  if (!http || refusal!.status !== 429) return { errors: [error] };
  return { errors: [new GraphQLError(error.message, { extensions: { ...error.extensions, http: { status: refusal!.status, headers } } })] };
}

/** A costly operation's HTTP answer carries its charge in the RateLimit-* headers. */
export function withChargeHeaders(result: ExecutionResult, headers: Record<string, string>): ExecutionResult {
  return { ...result, extensions: { ...result.extensions, http: { headers } } };
}

interface Options {
  /** Counts `requests` more against the rate limit of the context's caller. */
  charge(context: Context, requests: number): Promise<RateLimitCount>;
  formatError(error: unknown): GraphQLError;
}

export function operationLimits({ charge, formatError }: Options): Plugin<Context> {
  const admit = (args: ExecutionArgs) => admitCost(operationCost(args), (requests) => charge(args.contextValue as Context, requests));

  return {
    onValidate: ({ addValidationRule }) => {
      for (const rule of limitRules) addValidationRule(rule);
    },
    onExecute: async ({ args, setResultAndStopExecution }) => {
      const verdict = await admit(args);
      if (!verdict) return;
      if (verdict.refusal) return setResultAndStopExecution(refusalResult(formatError, verdict, isHttp(args)));
      if (!isHttp(args)) return;
      return {
        onExecuteDone: ({ result, setResult }) => {
          if (!isAsyncIterable(result)) setResult(withChargeHeaders(result, verdict.headers));
        },
      };
    },
    onSubscribe: async ({ args, setResultAndStopExecution }) => {
      const verdict = await admit(args);
      if (verdict?.refusal) setResultAndStopExecution(refusalResult(formatError, verdict, isHttp(args)));
    },
  };
}

function isHttp(args: ExecutionArgs): boolean {
  return typeof args.contextValue === "object" && args.contextValue !== null && "request" in args.contextValue;
}

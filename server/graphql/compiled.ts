// Compiled execution (graphql-jit, as Mercurius does): a document is compiled once into a function that
// resolves its fields without graphql-js's per-request walk over the selection sets. The REST adapter
// compiles its documents at boot; /graphql compiles each operation it sees, keeping a bounded set.
// Whatever graphql-jit cannot compile runs through graphql-js `execute`, with the same results.
import { execute, getOperationAST, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from "graphql";
import type { Plugin } from "graphql-yoga";
import { compileQuery, isCompiledQuery } from "graphql-jit";
import { RequestCache } from "@pothos/plugin-scope-auth";

export type RunOperation = (variableValues: Record<string, unknown> | undefined, contextValue: unknown) => Promise<ExecutionResult>;

export interface CompiledOperation {
  run: RunOperation;
  /** False when graphql-jit refused the document and `run` is graphql-js `execute`. */
  compiled: boolean;
}

export function compileOperation(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null, options = { jit: true }): CompiledOperation {
  const execution = (variableValues: Record<string, unknown> | undefined, contextValue: unknown) =>
    execute({ schema, document, operationName, variableValues, contextValue });
  const plan = options.jit ? compileQuery(schema, document, operationName ?? undefined) : null;
  if (!plan || !isCompiledQuery(plan)) {
    return {
      compiled: false,
      run: async (variables, context) => {
        try {
          return await execution(variables, context);
        } finally {
          forgetScopes(context);
        }
      },
    };
  }
  return {
    compiled: true,
    run: async (variables, context) => {
      try {
        const result = await plan.query(undefined, context, variables ?? {});
        // Refused before execution (variables that do not fit): graphql-js words these errors as clients
        // already know them (`at "input.name"`), and nothing has run yet, so it answers instead.
        if (result.errors?.length && result.data === undefined) return await execution(variables, context);
        return result;
      } finally {
        forgetScopes(context);
      }
    },
  };
}

/**
 * Drops the operation's auth-scope cache, which Pothos keeps in a WeakMap keyed by the context, once the
 * operation has run. Left to the garbage collector, such an entry keeps its value alive through V8's
 * young-generation collections until the old generation is collected: under load every request's scope cache,
 * and what it reaches, was promoted, and each young collection took ten times longer. Scopes are read from
 * the context, so a later run with the same context evaluates them again.
 */
function forgetScopes(context: unknown): void {
  if (context && typeof context === "object") RequestCache.clearForContext(context);
}

/**
 * Runs /graphql queries and mutations compiled, keeping the operations of the `maxDocuments` most recently
 * used documents (yoga's parse cache hands the same DocumentNode for the same text; a client sending
 * ever-new documents costs a compilation each, never unbounded memory). Subscriptions stay on graphql-js.
 */
export function compiledExecution(maxDocuments: number): Plugin {
  const recent = new Map<DocumentNode, Map<string, CompiledOperation>>();

  function operationFor(args: ExecutionArgs): CompiledOperation {
    let operations = recent.get(args.document);
    if (operations) {
      recent.delete(args.document); // the most recently used goes last
    } else {
      operations = new Map();
      if (recent.size >= maxDocuments) recent.delete(recent.keys().next().value!);
    }
    recent.set(args.document, operations);
    const name = args.operationName ?? "";
    let operation = operations.get(name);
    if (!operation) {
      operation = compileOperation(args.schema, args.document, args.operationName);
      operations.set(name, operation);
    }
    return operation;
  }

  return {
    onExecute({ args, setExecuteFn }) {
      if (getOperationAST(args.document, args.operationName)?.operation === "subscription") return;
      setExecuteFn((executionArgs: ExecutionArgs) => operationFor(executionArgs).run(executionArgs.variableValues ?? undefined, executionArgs.contextValue));
    },
  };
}

// Sets up Pothos: plugins, scalars and the auth scopes. Types and fields live in schema/<domain>.ts.
import SchemaBuilder from "@pothos/core";
import ComplexityPlugin from "@pothos/plugin-complexity";
import ErrorsPlugin from "@pothos/plugin-errors";
import PrismaPlugin from "@pothos/plugin-prisma";
import ScopeAuthPlugin from "@pothos/plugin-scope-auth";
import { GraphQLError, Kind } from "graphql";
import type PrismaTypes from "../generated/pothos-types.ts";
import { getDatamodel } from "../generated/pothos-types.ts";
import type { Context, ViewerContext } from "./context.ts";
import { authScopesFor, unauthorizedError, type AuthScopeName, type AuthScopes } from "./auth.ts";

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  AuthScopes: AuthScopes;
  AuthContexts: Record<AuthScopeName, ViewerContext>;
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: true;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    Bytes: { Input: bigint; Output: bigint | number };
    EnvVars: { Input: unknown; Output: Record<string, string> };
    Formation: { Input: unknown; Output: Record<string, number> };
    MetricSeries: { Input: never; Output: Array<[string, number | null]> };
    ProcessMetrics: { Input: never; Output: Record<string, Record<"cpu" | "memory" | "restarts", Array<[string, number | null]>>> };
  };
}>({
  plugins: [ScopeAuthPlugin, ErrorsPlugin, PrismaPlugin, ComplexityPlugin],
  defaultFieldNullability: false,
  defaultInputFieldRequiredness: true,
  scopeAuth: {
    authScopes: authScopesFor,
    unauthorizedError,
    authorizeOnSubscribe: true,
  },
  errors: { directResult: true },
  // Fields carry their cost (1 each, a list's items ×10 unless it says its page size); limits.ts measures and
  // limits it per operation, before execution, so the plugin's own per-resolver check stays off.
  complexity: { defaultComplexity: 1, defaultListMultiplier: 10, disabled: true },
  prisma: {
    // The client is only used for relation queries Pothos issues itself; resolvers use ctx.db.
    client: (ctx) => ctx.db,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});


// `toISOString` costs about a microsecond, and a list of apps has two dates per app. Most dates an answer holds
// come from rows kept across requests (the viewer, the app list), so texts are kept by time value. Not in a
// WeakMap keyed by the Date: an entry whose key dies young keeps its value alive until a full collection.
const KEPT_ISO_TEXTS = 4096;
const isoTexts = new Map<number, string>();
function isoText(date: Date): string {
  const time = date.getTime();
  let text = isoTexts.get(time);
  if (text === undefined) {
    if (isoTexts.size >= KEPT_ISO_TEXTS) isoTexts.clear();
    isoTexts.set(time, (text = date.toISOString()));
  }
  return text;
}

builder.scalarType("DateTime", {
  description: "An ISO-8601 timestamp in UTC",
  serialize: isoText,
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new GraphQLError("Expected an ISO-8601 timestamp.");
    return date;
  },
});

builder.scalarType("Bytes", {
  description: "A non-negative number of bytes (a JSON number)",
  serialize: (value) => Number(value),
  parseValue: (value) => parseBytes(value),
  parseLiteral: (node) => {
    if (node.kind !== Kind.INT) throw new GraphQLError("Expected a whole number of bytes.");
    return parseBytes(Number(node.value));
  },
});

function parseBytes(value: unknown): bigint {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new GraphQLError("Expected a whole, non-negative number of bytes.");
  }
  return BigInt(value);
}

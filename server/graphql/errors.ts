// The GraphQL transport's error formatter: AppErrors keep their message and become extensions.code
// (+ details); anything else is logged and masked as `internal`.
import { GraphQLError } from "graphql";
import { AppError, InternalError } from "../errors.ts";

export function formatGraphQLError(error: unknown, log: (error: unknown) => void): GraphQLError {
  const graphQLError = error instanceof GraphQLError ? error : null;
  const original = graphQLError?.originalError ?? error;
  if (original instanceof AppError && original.expose) {
    return new GraphQLError(original.message, {
      nodes: graphQLError?.nodes,
      path: graphQLError?.path,
      extensions: { code: original.code, ...(original.details ? { details: original.details } : {}) },
    });
  }
  // Parse and validation errors, and variables that do not fit: the client's own mistake, safe to show.
  if (graphQLError && (!graphQLError.originalError || graphQLError.originalError instanceof GraphQLError)) {
    return new GraphQLError(graphQLError.message, {
      nodes: graphQLError.nodes,
      path: graphQLError.path,
      extensions: { ...graphQLError.extensions, code: "invalid_request" },
    });
  }
  log(original);
  const internal = new InternalError(original);
  return new GraphQLError(internal.message, { path: graphQLError?.path, extensions: { code: internal.code } });
}

// The dashboard's one error handler: turns whatever went wrong (a network failure, a GraphQL error with
// extensions.code, an error result of a mutation's union) into a Problem the UI can show: one message
// and, for form input, a message per field.
import { error as httpError, redirect } from "@sveltejs/kit";
import type { CombinedError } from "@urql/core";
import { graphql } from "$lib/gql";
import { loginUrl } from "$lib/navigation";

export interface Problem {
  code: string;
  message: string;
  /** Field name (as in the mutation input) → message to show beside that input. */
  fields: Record<string, string>;
}

/** What every mutation selects of its result union's error members (as the server's REST routes do). */
export const ErrorFields = graphql(`
  fragment ErrorFields on Error {
    code
    message
    ... on InvalidRequestError {
      fields {
        field
        message
      }
    }
    ... on ConflictError {
      fields {
        field
        message
      }
    }
  }
`);

/** An error member of a mutation's result union (InvalidRequestError, ConflictError, …). */
export interface ErrorResult {
  code: string;
  message: string;
  fields?: readonly { field: string; message: string }[];
}

// Our own words where the server's are written for API clients; every other code keeps the server's
// message, which is written for people.
const MESSAGES: Record<string, string> = {
  network: "Slipway cannot be reached. Check your connection and try again.",
  internal: "Something went wrong on our side. Try again in a moment.",
  invalid_credentials: "Invalid email or password. Check both and try again.",
  unauthenticated: "Your session has ended. Sign in again.",
};

const STATUS: Record<string, number> = {
  unauthenticated: 401,
  forbidden: 403,
  account_pending: 403,
  account_suspended: 403,
  not_found: 404,
  rate_limited: 429,
  network: 503,
};

function isCombinedError(value: CombinedError | ErrorResult): value is CombinedError {
  return "graphQLErrors" in value;
}

export function problemFrom(failure: CombinedError | ErrorResult | undefined): Problem {
  if (!failure) return { code: "internal", message: MESSAGES.internal, fields: {} };
  if (!isCombinedError(failure)) {
    const fields = Object.fromEntries((failure.fields ?? []).map((f) => [f.field, f.message]));
    return { code: failure.code, message: MESSAGES[failure.code] ?? failure.message, fields };
  }
  const first = failure.graphQLErrors[0];
  if (failure.networkError || !first) return { code: "network", message: MESSAGES.network, fields: {} };
  const code = typeof first.extensions?.code === "string" ? first.extensions.code : "internal";
  const details = first.extensions?.details as { fields?: Record<string, string> } | undefined;
  return { code, message: MESSAGES[code] ?? first.message, fields: { ...details?.fields } };
}

/** The error body of a REST route (`{"error": {code, message, details: {fields}}}`), or what a failed request left. */
export function problemFromRest(body: unknown): Problem {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: { fields?: Record<string, string> } } } | null)?.error;
  if (typeof error?.code !== "string" || typeof error.message !== "string") return { code: "internal", message: MESSAGES.internal, fields: {} };
  return { code: error.code, message: MESSAGES[error.code] ?? error.message, fields: { ...error.details?.fields } };
}

/** For load functions: a signed-out visitor goes to the sign-in page, anything else to the error page. */
export function failLoad(failure: CombinedError | undefined, url: URL): never {
  const problem = problemFrom(failure);
  if (problem.code === "unauthenticated") redirect(307, loginUrl(url));
  httpError(STATUS[problem.code] ?? 500, { message: problem.message, code: problem.code });
}

// What /graphql over HTTP accepts. POST bodies are JSON only: no form or multipart, which a cross-site HTML form
// could send without a preflight (to sign a visitor in, say); GraphQL here takes no file uploads. GET parameters
// `variables` and `extensions` must be JSON objects: anything else is the client's mistake (400), not ours.
import type { FastifyInstance } from "fastify";
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { UnsupportedMediaTypeError } from "../errors.ts";

const JSON_BODY = /^application\/json\s*(;|$)/i;
const JSON_PARAMS = ["variables", "extensions"] as const;

/** Refuses a POST that is not JSON before its body is read (Fastify hook of the /graphql scope). */
export function acceptJsonOnly(scope: FastifyInstance) {
  scope.addHook("onRequest", (request, _reply, done) => {
    const refused = request.method === "POST" && !JSON_BODY.test(request.headers["content-type"] ?? "");
    done(refused ? new UnsupportedMediaTypeError("Send the GraphQL request as JSON with Content-Type: application/json.") : undefined);
  });
}

/** Yoga's GET parser, with a 400 invalid_request for parameters that are not JSON objects. */
export function getParameters(): Plugin {
  return {
    onRequestParse: ({ request, setRequestParser }) => {
      if (request.method === "GET") setRequestParser(parseGet);
    },
  };
}

function parseGet(request: Request) {
  const search = new URL(request.url).searchParams;
  const [variables, extensions] = JSON_PARAMS.map((name) => jsonObject(name, search.get(name)));
  return { query: search.get("query") || undefined, operationName: search.get("operationName") || undefined, variables, extensions };
}

function jsonObject(name: string, text: string | null): Record<string, unknown> | undefined {
  if (!text) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(`The "${name}" parameter is not valid JSON (${(error as Error).message}): send a URL-encoded JSON object.`);
  }
  if (value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw invalid(`The "${name}" parameter must be a JSON object, like {"id": "…"}.`);
  return value as Record<string, unknown>;
}

/** A client error yoga answers with HTTP 400; graphql/errors.ts gives it the contract's invalid_request. */
function invalid(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { http: { status: 400 } } });
}

// /graphql over HTTP (graphql-yoga) and over WebSocket (graphql-ws), sharing one envelop pipeline,
// one schema and one context shape.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { NoSchemaIntrospectionCustomRule, parse, type GraphQLError, type GraphQLSchema } from "graphql";
import { createYoga, type Plugin } from "graphql-yoga";
import { useServer } from "graphql-ws/use/ws";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { SESSION_COOKIE, type Viewer } from "../auth/viewer.ts";
import type { Platform } from "../platform/index.ts";
import { contextFor } from "../http/context.ts";
import { GRAPHIQL_CSP, renderGraphiQLPage } from "../http/graphiql.ts";
import { isCrossSiteCookie, refuseCrossSiteSignIn } from "../http/origin.ts";
import { countRequest } from "../http/rate-limit.ts";
import type { Context } from "./context.ts";
import { formatGraphQLError } from "./errors.ts";
import { acceptJsonOnly, getParameters } from "./http-input.ts";
import { operationLimits } from "./limits.ts";
import { reauthenticatedSubscriptions } from "./live.ts";
import { compiledExecution } from "./compiled.ts";
import { graphqlFastPath } from "./fast-path.ts";

type ServerContext = { req: FastifyRequest; reply: FastifyReply } | { wsContext: Context };

/** Far above any real operation (the dashboard's largest has ~60 tokens), far below what overflows graphql-js's recursive parser. */
const MAX_TOKENS = 2000;
/** graphql-ws close code for a connection past the caller's rate limit (HTTP 429 in the 4xxx range graphql-ws uses). */
const RATE_LIMITED_CLOSE = 4429;
/** Compiled /graphql documents kept (the dashboard sends a few dozen; the rest are other clients' own). */
const COMPILED_DOCUMENTS = 500;

/**
 * For HTTP and WebSocket alike: parsing stops at MAX_TOKENS, so a deeply nested document is a syntax error
 * instead of a stack overflow; validation errors carry the contract's invalid_request like syntax errors.
 */
function documentChecks(formatError: (error: unknown) => GraphQLError): Plugin {
  return {
    onParse: ({ setParseFn }) => setParseFn((source, options) => parse(source, { ...options, maxTokens: MAX_TOKENS })),
    onValidate: () => ({ valid, result, setResult }) => {
      if (!valid) setResult(result.map(formatError));
    },
  };
}

/** In production, anonymous callers cannot introspect the schema (schema.graphql is published instead). */
function introspectionForViewers(production: boolean): Plugin<ServerContext> {
  const viewerOf = (context: ServerContext): Viewer | null | undefined => ("wsContext" in context ? context.wsContext.viewer : context.req.auth?.viewer);
  return {
    onValidate: ({ context, addValidationRule }) => {
      if (production && !viewerOf(context)) addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
}

function isStreamed(contentType: string | null): boolean {
  return /^(text\/event-stream|multipart\/mixed)/i.test(contentType ?? "");
}

export async function registerGraphQL(app: FastifyInstance, platform: Platform, schema: GraphQLSchema) {
  const formatError = (error: unknown) => formatGraphQLError(error, (e) => app.log.error({ err: e }, "graphql request failed"));
  const charge = (ctx: Context, requests: number) => countRequest(platform, { viewer: ctx.viewer, ip: ctx.client.ip }, requests);
  const yoga = createYoga<ServerContext>({
    schema,
    plugins: [
      getParameters(),
      documentChecks(formatError),
      introspectionForViewers(platform.config.production),
      operationLimits({ formatError, charge }),
      reauthenticatedSubscriptions(),
      ...(platform.config.graphqlJit ? [compiledExecution(COMPILED_DOCUMENTS)] : []),
    ],
    graphqlEndpoint: "/graphql",
    context: (initial) => ("wsContext" in initial ? initial.wsContext : contextFor(platform, initial.req, initial.reply)),
    maskedErrors: { maskError: formatError },
    // Unexpected errors are logged by maskError; the rest are the client's and not worth a log line.
    logging: false,
    landingPage: false,
    // GraphiQL from this server's own files (http/graphiql.ts), not yoga's default page, which loads it from a CDN.
    graphiql: { title: "Slipway GraphiQL" },
    renderGraphiQL: renderGraphiQLPage,
    // Cross-origin access is http/cors.ts's, the same for /api; yoga's default would allow any origin with credentials.
    cors: false,
    multipart: false,
  });

  // Known documents POSTed as JSON skip yoga's HTTP pipeline, with the same answers (graphql/fast-path.ts).
  const fastPath = platform.config.graphqlFastPath
    ? graphqlFastPath({
        schema,
        maxDocuments: COMPILED_DOCUMENTS,
        maxTokens: MAX_TOKENS,
        jit: platform.config.graphqlJit,
        introspectionRefused: (req) => platform.config.production && !req.auth?.viewer,
        context: (req, reply) => contextFor(platform, req, reply),
        charge,
        formatError,
      })
    : null;

  await app.register(async (scope) => {
    acceptJsonOnly(scope);
    scope.route({
      url: "/graphql",
      method: ["GET", "POST", "OPTIONS"],
      handler: async (req, reply) => {
        if (fastPath && (await fastPath.handle(req, reply))) return reply;
        const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
        response.headers.forEach((value, key) => void reply.header(key, value));
        if (response.headers.get("content-type")?.startsWith("text/html")) {
          reply.header("Content-Security-Policy", GRAPHIQL_CSP).header("Cache-Control", "no-cache");
        }
        reply.status(response.status);
        // A single result is sent as one buffer; only event streams and incremental delivery are piped.
        if (response.body === null) return reply.send();
        return reply.send(isStreamed(response.headers.get("content-type")) ? response.body : Buffer.from(await response.arrayBuffer()));
      },
    });
  });

  // The router hands over the handshakes to /graphql on the platform's hosts (see handleUpgrade below).
  const wss = new WebSocketServer({ noServer: true });
  const publicUrl = new URL(platform.config.publicUrl);
  useServer<Record<string, unknown>, { request: IncomingMessage; context?: Context }>(
    {
      onConnect: async (ctx) => {
        const request = ctx.extra.request;
        const cookies = app.parseCookie(request.headers.cookie ?? "");
        const authorization = typeof ctx.connectionParams?.authorization === "string" ? ctx.connectionParams.authorization : undefined;
        const credentials = { sessionToken: cookies[SESSION_COOKIE], authorization };
        // Browsers send cookies on cross-site WebSocket handshakes: refuse those, as the guard refuses HTTP writes
        // (a connection can write).
        if (isCrossSiteCookie(credentials, request.headers, publicUrl)) return false;
        const auth = await platform.authenticate(credentials);
        // A connection counts like an HTTP request; past the limit it is closed with the reason (no GraphQL error
        // can be sent before the connection is acknowledged).
        const { refusal } = await countRequest(platform, { viewer: auth.viewer, ip: request.socket.remoteAddress });
        if (refusal) {
          ctx.extra.socket.close(RATE_LIMITED_CLOSE, `${refusal.code}: ${refusal.message}`);
          return false;
        }
        ctx.extra.context = {
          config: platform.config,
          db: platform.db,
          services: platform.services,
          viewer: auth.viewer,
          authError: auth.error,
          client: { ip: request.socket.remoteAddress, userAgent: request.headers["user-agent"] },
          sessionCookie: {
            assertSameOrigin: () => refuseCrossSiteSignIn(request.headers, publicUrl),
            set: () => refuseCrossSiteSignIn(request.headers, publicUrl),
            clear: () => {},
          },
          reauthenticate: () => platform.authenticate(credentials),
        };
        return true;
      },
      execute: (args) => (args.rootValue as Enveloped).execute(args),
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
      // Each subscribe counts like an HTTP request; refusals and bad documents answer GraphQL errors on the
      // operation and leave the connection open.
      onSubscribe: async (ctx, _id, params) => {
        // Each operation authenticates again: a session signed out or a token revoked since the connection
        // opened no longer acts through it.
        const connection = ctx.extra.context!;
        const auth = await connection.reauthenticate();
        const context: Context = { ...connection, viewer: auth.viewer, authError: auth.error };
        const { refusal } = await countRequest(platform, { viewer: context.viewer, ip: context.client.ip });
        if (refusal) return [formatError(refusal)];
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({ wsContext: context, params });
        let document;
        try {
          document = parse(params.query);
        } catch (error) {
          return [formatError(error)];
        }
        const errors = validate(schema, document);
        if (errors.length) return errors;
        return {
          schema,
          operationName: params.operationName,
          document,
          variableValues: params.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        };
      },
    },
    wss,
  );

  // Before the server waits for its connections to end: an open WebSocket is one of them, and would hold the
  // close until its client leaves.
  app.addHook("preClose", async () => {
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  const handleUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) =>
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit("connection", ws, request));
  return { yoga, handleUpgrade, fastPath };
}

type Enveloped = { execute: (args: unknown) => never; subscribe: (args: unknown) => never };

// /graphql over HTTP (graphql-yoga) and over WebSocket (graphql-ws), sharing one envelop pipeline,
// one schema and one context shape.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { GraphQLSchema } from "graphql";
import { createYoga } from "graphql-yoga";
import { useServer } from "graphql-ws/use/ws";
import type { IncomingMessage } from "node:http";
import { WebSocketServer } from "ws";
import { SESSION_COOKIE } from "../auth/viewer.ts";
import type { Platform } from "../platform/index.ts";
import { contextFor } from "../http/context.ts";
import type { Context } from "./context.ts";
import { formatGraphQLError } from "./errors.ts";

type ServerContext = { req: FastifyRequest; reply: FastifyReply } | { wsContext: Context };

export async function registerGraphQL(app: FastifyInstance, platform: Platform, schema: GraphQLSchema) {
  const yoga = createYoga<ServerContext>({
    schema,
    graphqlEndpoint: "/graphql",
    context: (initial) => ("wsContext" in initial ? initial.wsContext : contextFor(platform, initial.req, initial.reply)),
    maskedErrors: { maskError: (error) => formatGraphQLError(error, (e) => app.log.error({ err: e }, "graphql resolver failed")) },
    // Unexpected errors are logged by maskError; the rest are the client's and not worth a log line.
    logging: false,
    landingPage: false,
  });

  await app.register(async (scope) => {
    // Leave multipart bodies to yoga (file uploads), whatever the REST scope registers.
    scope.addContentTypeParser("multipart/form-data", {}, (_request, _payload, done) => done(null));
    scope.route({
      url: "/graphql",
      method: ["GET", "POST", "OPTIONS"],
      handler: async (req, reply) => {
        const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
        response.headers.forEach((value, key) => void reply.header(key, value));
        reply.status(response.status);
        return reply.send(response.body);
      },
    });
  });

  const wss = new WebSocketServer({ server: app.server, path: "/graphql" });
  const publicOrigin = new URL(platform.config.publicUrl).origin;
  useServer<Record<string, unknown>, { request: IncomingMessage; context?: Context }>(
    {
      onConnect: async (ctx) => {
        const request = ctx.extra.request;
        const cookies = app.parseCookie(request.headers.cookie ?? "");
        const authorization = typeof ctx.connectionParams?.authorization === "string" ? ctx.connectionParams.authorization : undefined;
        const origin = request.headers.origin;
        // Browsers send cookies on cross-site WebSocket handshakes: refuse those, as for HTTP writes.
        if (cookies[SESSION_COOKIE] && origin && origin !== publicOrigin && origin !== `${new URL(publicOrigin).protocol}//${request.headers.host}`) {
          return false;
        }
        const auth = await platform.authenticate({ sessionToken: cookies[SESSION_COOKIE], authorization });
        ctx.extra.context = {
          config: platform.config,
          db: platform.db,
          services: platform.services,
          viewer: auth.viewer,
          authError: auth.error,
          client: { ip: request.socket.remoteAddress, userAgent: request.headers["user-agent"] },
          sessionCookie: { set: () => {}, clear: () => {} },
        };
        return true;
      },
      execute: (args) => (args.rootValue as Enveloped).execute(args),
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
      onSubscribe: async (ctx, _id, params) => {
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          wsContext: ctx.extra.context!,
          params,
        });
        const args = {
          schema,
          operationName: params.operationName,
          document: parse(params.query),
          variableValues: params.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        };
        const errors = validate(args.schema, args.document);
        return errors.length ? errors : args;
      },
    },
    wss,
  );

  app.addHook("onClose", async () => {
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  return yoga;
}

type Enveloped = { execute: (args: unknown) => never; subscribe: (args: unknown) => never };

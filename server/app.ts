// Builds the HTTP server: one Fastify instance serving the API, GraphQL (HTTP + WebSocket), the
// dashboard and, later, OAuth and deployed apps.
import fastifyCookie from "@fastify/cookie";
import fastifyFormbody from "@fastify/formbody";
import Fastify, { type FastifyInstance } from "fastify";
import type { Config } from "./config.ts";
import { migrate } from "./db/migrate.ts";
import { schema } from "./graphql/schema/index.ts";
import { registerGraphQL } from "./graphql/server.ts";
import { registerErrorHandler } from "./http/errors.ts";
import { registerGuard } from "./http/guard.ts";
import { registerSecurityHeaders } from "./http/security-headers.ts";
import { registerDashboard } from "./http/web.ts";
import { oauthRoutes } from "./oauth/routes.ts";
import { createPlatform, type Platform } from "./platform/index.ts";
import { compileRoutes, registerRestRoutes } from "./rest/adapter.ts";
import { buildOpenApi } from "./rest/openapi.ts";

export interface Slipway {
  app: FastifyInstance;
  platform: Platform;
  /** Listens on config.port (0 = a free port) and returns the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export async function buildSlipway(config: Config): Promise<Slipway> {
  await migrate(config.databaseUrl);
  const platform = await createPlatform(config);
  const app = Fastify({
    logger: config.logLevel === "silent" ? false : { level: config.logLevel, redact: ["req.headers.authorization", "req.headers.cookie"] },
    bodyLimit: 1024 * 1024,
    trustProxy: false,
  });

  await app.register(fastifyCookie);
  await app.register(fastifyFormbody);
  registerErrorHandler(app);
  registerSecurityHeaders(app);
  registerGuard(app, platform);
  await registerGraphQL(app, platform, schema);

  const compiled = compileRoutes(schema);
  const openapi = buildOpenApi(schema, compiled, config.publicUrl);
  await app.register(async (rest) => {
    registerRestRoutes(rest, platform, schema, compiled);
    rest.get("/api/openapi.json", async () => openapi);
  });
  await app.register(oauthRoutes, { platform });
  await registerDashboard(app);
  app.addHook("onClose", () => platform.close());

  return {
    app,
    platform,
    async listen() {
      await app.listen({ port: config.port, host: config.host });
      const address = app.server.address();
      return typeof address === "object" && address ? `http://127.0.0.1:${address.port}` : config.publicUrl;
    },
    close: () => app.close(),
  };
}

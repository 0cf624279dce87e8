// The yardstick: a bare Fastify 5 app (no plugins, no hooks, no database) answering a fixed JSON body.
import Fastify from "fastify";

export interface PlainServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `body` at GET `path`; the object is serialized per request, as a real route would. A function
 * is called per request for the body instead.
 */
export async function startPlainFastify(path: string, body: unknown): Promise<PlainServer> {
  const app = Fastify({ logger: false });
  app.get(path, typeof body === "function" ? async () => body() : async () => body);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (!address || typeof address === "string") throw new Error("plain Fastify did not get a TCP port");
  return { url: `http://127.0.0.1:${address.port}${path}`, close: () => app.close() };
}

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RestRequestParts {
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  body: unknown;
}

export interface RestRoute {
  method: HttpMethod;
  /** Fastify path, e.g. /api/apps/:slug */
  path: string;
  tag: string;
  summary: string;
  /** One GraphQL operation; fragments from rest/fragments.ts are appended when spread. */
  document: string;
  /** The variable the JSON body becomes (its GraphQL input type documents the body). */
  input?: string;
  /** Path and query parameters → variables; by default every path param under its own name. */
  variables?: (parts: RestRequestParts) => Record<string, unknown>;
  /**
   * A multipart upload route: the part named `file` is streamed to disk (bounded by the caller's maxUploadBytes)
   * and this variable receives the staged upload's id.
   */
  upload?: string;
  /**
   * With `upload`: the part is not staged to disk but handed to the operation as a live stream (its id names it
   * in the upload service), for the operation to pipe straight into storage (the CDN).
   */
  stream?: boolean;
  /** Success status: 200 by default; 204 sends no body. */
  status?: 200 | 201 | 202 | 204;
}

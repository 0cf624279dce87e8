// GET /api/resources/:id/backups/:backupId: a backup's bytes, for the database's owner. A deliberate exception
// to "every route runs a GraphQL operation" (like the GitHub webhook): GraphQL answers JSON, this streams a file
// (or redirects to a short-lived presigned URL when the storage is S3). Authorized by the same rules as the
// schema's read:apps fields: the guard's viewer, the scope, and another user's database is not found.
import type { FastifyInstance } from "fastify";
import { authScopesFor, unauthorizedError } from "../graphql/auth.ts";
import type { Platform } from "../platform/index.ts";
import { contextFor } from "./context.ts";

export async function backupDownloadRoutes(app: FastifyInstance, { platform }: { platform: Platform }) {
  app.get<{ Params: { id: string; backupId: string } }>("/api/resources/:id/backups/:backupId", async (request, reply) => {
    const ctx = contextFor(platform, request, reply);
    if (!authScopesFor(ctx)["read:apps"]) {
      throw unauthorizedError(null, ctx, null, { message: "", failure: { kind: "scope", scope: "read:apps", parameter: true } as never });
    }
    const found = await platform.services.backups.download(ctx.viewer!.user.id, request.params.id, request.params.backupId);
    reply.header("Cache-Control", "private, no-store");
    if ("url" in found) return reply.redirect(found.url, 302);
    return reply
      .header("Content-Type", found.contentType)
      .header("Content-Length", found.size)
      .header("Content-Disposition", `attachment; filename="${found.fileName}"`)
      .header("X-Content-Type-Options", "nosniff")
      .send(found.body);
  });
}

// The CDN file store: your files, a page at a time, uploads (streamed by REST POST /api/cdn) and deletes.
// The content itself is public, at each file's `url` (GET /api/cdn/:id, served by server/http/cdn.ts).
import { NotFoundError } from "../../errors.ts";
import { builder } from "../builder.ts";
import { pageArgs, pageCost, pageOf } from "../pages.ts";

const READ = { "read:apps": true } as const;
const WRITE = { "write:apps": true } as const;

export const File = builder.prismaObject("File", {
  description: "A file in your CDN storage; anyone with its url can fetch it",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    size: t.expose("size", { type: "Bytes" }),
    contentType: t.exposeString("contentType", { description: "The media type it is served with" }),
    sha256: t.exposeString("sha256", { description: "Hex SHA-256 of the content (also its ETag)" }),
    url: t.string({
      description: "Its public address: redirects to the content, for anyone, without signing in",
      resolve: (file, _args, ctx) => `${ctx.config.publicUrl}/api/cdn/${file.id}`,
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.queryFields((t) => ({
  files: t.withAuth(READ).prismaField({
    type: ["File"],
    description: "Your CDN files, newest first, a page at a time",
    args: pageArgs(t.arg, "id"),
    complexity: pageCost,
    resolve: (_query, _root, args, ctx) => ctx.services.cdn.list(ctx.viewer.user.id, pageOf(args)),
  }),
}));

builder.mutationFields((t) => ({
  uploadFile: t.withAuth(WRITE).prismaField({
    type: "File",
    description:
      "Store the file streamed by POST /api/cdn (multipart part `file`), within your cdnBytes (413 quota_exceeded) " +
      "and maxUploadBytes (413 payload_too_large)",
    args: { upload: t.arg.id() },
    errors: { types: [NotFoundError] },
    resolve: (_query, _root, { upload }, ctx) => ctx.services.cdn.upload(ctx.viewer.user.id, String(upload)),
  }),
  deleteFile: t.withAuth(WRITE).boolean({
    description: "Delete one of your files; its bytes no longer count against your cdnBytes",
    args: { id: t.arg.id() },
    resolve: async (_root, { id }, ctx) => {
      await ctx.services.cdn.remove(ctx.viewer.user.id, String(id));
      return true;
    },
  }),
}));

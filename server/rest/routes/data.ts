// App databases with their backups, and CDN files.
import type { RestRoute } from "../types.ts";

export const dataRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/api/apps/:slug/resources",
    tag: "databases",
    summary: "Provision a database (`{type?: postgres|sqlite, name?}`); its URL becomes the env var `envKey` and a running app restarts with it",
    document: `mutation CreateResource($slug: String!, $input: CreateResourceInput) {
      createResource(slug: $slug, input: $input) { ... on Resource { ...ResourceFields } ...ErrorFields } }`,
    input: "input",
    status: 201,
  },
  {
    method: "GET",
    path: "/api/cdn",
    tag: "cdn",
    summary: "Your CDN files, newest first (the first 100)",
    document: `query Files { files(first: 100) { ...FileFields } }`,
  },
  {
    method: "POST",
    path: "/api/cdn",
    tag: "cdn",
    summary: "Upload a file (multipart/form-data, part `file`), streamed into storage; 413 past cdnBytes or maxUploadBytes",
    document: `mutation UploadFile($upload: ID!) { uploadFile(upload: $upload) { ... on File { ...FileFields } ...ErrorFields } }`,
    upload: "upload",
    stream: true,
    status: 201,
  },
  {
    method: "DELETE",
    path: "/api/resources/:id",
    tag: "databases",
    summary: "Drop the database for real, with its backups; its env var is removed and a running app restarts",
    document: `mutation DeleteResource($id: ID!) { deleteResource(id: $id) }`,
    status: 204,
  },
  {
    method: "GET",
    path: "/api/resources/:id/backups",
    tag: "databases",
    summary: "The database's backups (size in bytes, time, trigger), newest first (the latest 100)",
    document: `query ResourceBackups($id: ID!) { resourceBackups(id: $id, first: 100) { ...BackupFields } }`,
  },
  {
    method: "POST",
    path: "/api/resources/:id/backups",
    tag: "databases",
    summary: "Back the database up now",
    document: `mutation BackupResource($id: ID!) { backupResource(id: $id) { ... on Backup { ...BackupFields } ...ErrorFields } }`,
    status: 201,
  },
  {
    method: "POST",
    path: "/api/resources/:id/backups/:backupId/restore",
    tag: "databases",
    summary: "Put the backup's content back into the same database; the app is stopped meanwhile and started again",
    document: `mutation RestoreBackup($id: ID!, $backupId: ID!) {
      restoreBackup(id: $id, backupId: $backupId) { ... on Backup { ...BackupFields } ...ErrorFields } }`,
  },
  {
    method: "DELETE",
    path: "/api/cdn/:id",
    tag: "cdn",
    summary: "Delete one of your files; its bytes are free at once",
    document: `mutation DeleteFile($id: ID!) { deleteFile(id: $id) }`,
    status: 204,
  },
];

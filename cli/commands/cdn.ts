// cdn:upload <file> (prints its public URL), cdn:list, cdn:delete <file>: your CDN files. Uploads go to the REST
// route (POST /api/cdn, streamed, with the progress bar); listing and deleting over GraphQL.
import fs from "node:fs";
import path from "node:path";
import { Api, NetworkError, type GlobalOptions } from "../api.ts";
import { DeleteFileMutation, FilesQuery, WhoamiQuery } from "../documents.ts";
import type { CliFilesQuery } from "../gql/graphql.ts";
import { CliError, color, formatBytes, print, printJson, printTable } from "../output.ts";
import { uploadFile } from "../upload.ts";

/** The page size of the files query (`first: 100` in documents.ts). */
const PAGE = 100;

type Options = GlobalOptions & { json?: boolean; yes?: boolean; type?: string; name?: string };
type File = CliFilesQuery["files"][number];

export async function upload(file: string, options: Options) {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw new CliError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (!stat.isFile()) throw new CliError(`${file} is not a file.`);
  const api = Api.connect(options);
  // Checked first: a server refusing a body it is still receiving closes the connection mid-upload.
  const { viewer } = await api.graphql(WhoamiQuery, {});
  if (stat.size > viewer.quota.maxUploadBytes) {
    throw new CliError(`${file} is ${formatBytes(stat.size)}, over your upload limit of ${formatBytes(viewer.quota.maxUploadBytes)} (ask for more with \`slipway quota:request --upload-bytes …\`).`);
  }
  const fileName = options.name ?? path.basename(file);
  const contentType = options.type ?? ((await import("mime-types")).lookup(fileName) || "application/octet-stream");
  let answer: { status: number; body: any };
  try {
    answer = await uploadFile(api, { method: "POST", path: "/api/cdn", file, bytes: stat.size, fileName, contentType, label: "Uploading" });
  } catch (error) {
    // A refusal can end the connection before its answer is read: say why when the storage is what is full.
    if (!(error instanceof NetworkError)) throw error;
    const { viewer: now } = await api.graphql(WhoamiQuery, {});
    if (now.quota.usage.cdnBytes + stat.size > now.quota.cdnBytes) {
      throw new CliError(`${file} (${formatBytes(stat.size)}) does not fit in your CDN storage: ${formatBytes(now.quota.usage.cdnBytes)} of ${formatBytes(now.quota.cdnBytes)} used.`);
    }
    throw error;
  }
  if (answer.status !== 201) throw new CliError(answer.body?.error?.message ?? `The upload failed with HTTP ${answer.status}.`);
  const stored = answer.body as File;
  if (options.json) return printJson(stored);
  process.stderr.write(`Uploaded ${stored.name} (${formatBytes(stored.size)}, ${stored.contentType}) as ${stored.id}.\n`);
  print(stored.url);
}

async function allFiles(api: Api): Promise<File[]> {
  const all: File[] = [];
  let after: string | null = null;
  for (;;) {
    const { files }: CliFilesQuery = await api.graphql(FilesQuery, { after });
    all.push(...files);
    if (files.length < PAGE) return all;
    after = files[files.length - 1].id;
  }
}

export async function list(options: Options) {
  const api = Api.connect(options);
  const files = await allFiles(api);
  if (options.json) return printJson(files);
  if (!files.length) return print("You have no CDN files. Upload one with `slipway cdn:upload <file>`.");
  printTable(
    ["ID", "NAME", "SIZE", "TYPE", "CREATED", "URL"],
    files.map((f) => [f.id, f.name, formatBytes(f.size), f.contentType, f.createdAt, f.url]),
  );
  print(color.dim(`${files.length} file${files.length === 1 ? "" : "s"}, ${formatBytes(files.reduce((sum, f) => sum + f.size, 0))}`));
}

export async function remove(ref: string, options: Options) {
  const api = Api.connect(options);
  const files = await allFiles(api);
  const byName = files.filter((f) => f.name === ref);
  if (!files.some((f) => f.id === ref) && byName.length > 1) {
    throw new CliError(`${byName.length} of your files are named ${ref}: give the id of the one to delete (see \`slipway cdn:list\`).`);
  }
  const file = files.find((f) => f.id === ref) ?? byName[0];
  if (!file) throw new CliError(`You have no CDN file with the id or name ${ref} (see \`slipway cdn:list\`).`);
  if (!options.yes) {
    if (!process.stdin.isTTY) throw new CliError(`Refusing to delete ${file.name} without confirmation: pass --yes.`);
    const { confirm, isCancel } = await import("@clack/prompts");
    const ok = await confirm({ message: `Delete ${file.name} (${formatBytes(file.size)})? Its URL stops working.`, initialValue: false });
    if (isCancel(ok) || !ok) throw new CliError("Not deleted.");
  }
  await api.graphql(DeleteFileMutation, { id: file.id });
  print(`Deleted ${file.name} (${file.id}).`);
}

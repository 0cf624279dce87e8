// slipway deploy [dir] | --repo owner/name [--branch b] | --github: queue a deployment, then stream its build
// log until it is live (exit 0, prints the URL) or not (exit 1, prints why).
import path from "node:path";
import { Api, unwrap, type GlobalOptions } from "../api.ts";
import { DeployRepoMutation, DeploymentStatusQuery, WhoamiQuery } from "../documents.ts";
import { resolveApp } from "../link.ts";
import { CliError, color, formatBytes, print, status } from "../output.ts";
import { uploadFile } from "../upload.ts";

type Options = GlobalOptions & { app?: string; repo?: string; branch?: string; github?: boolean; follow: boolean };

async function upload(api: Api, slug: string, dir: string): Promise<{ id: string }> {
  const { zipFolder } = await import("../zip.ts");
  const zip = await zipFolder(dir);
  try {
    process.stderr.write(`Packed ${zip.files} files from ${path.resolve(dir)} (${formatBytes(zip.bytes)}).\n`);
    // Checked first: a server refusing a body it is still receiving may close the connection mid-upload.
    const { viewer } = await api.graphql(WhoamiQuery, {});
    if (zip.bytes > viewer.quota.maxUploadBytes) {
      throw new CliError(`The zip is ${formatBytes(zip.bytes)}, over your upload limit of ${formatBytes(viewer.quota.maxUploadBytes)}: add what the build does not need to .slipwayignore, or ask for a higher limit (\`slipway quota:request --upload-bytes …\`).`);
    }
    const res = await uploadFile(api, {
      method: "PUT",
      path: `/api/apps/${encodeURIComponent(slug)}/deploy`,
      file: zip.file,
      bytes: zip.bytes,
      fileName: "app.zip",
      contentType: "application/zip",
      label: "Uploading",
    });
    const answer = res.body;
    if (res.status !== 202) throw new CliError(answer?.error?.message ?? `The upload failed with HTTP ${res.status}.`);
    return answer;
  } finally {
    zip.cleanup();
  }
}

async function settle(api: Api, slug: string, id: string) {
  const { waitForDeployment } = await import("../stream.ts");
  try {
    return await waitForDeployment(api, slug, id);
  } catch {
    // The status stream dropped: poll over HTTP instead.
    for (;;) {
      const { app } = await api.graphql(DeploymentStatusQuery, { slug });
      const deployment = app.deployments.find((d) => d.id === id);
      if (!deployment) return { status: "SUPERSEDED", error: "A newer deployment replaced it.", url: app.url };
      if (["LIVE", "FAILED", "CANCELED", "SUPERSEDED"].includes(deployment.status)) return { status: deployment.status, error: deployment.error ?? null, url: app.url };
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

export async function deploy(dir: string | undefined, options: Options) {
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  let deployment: { id: string };
  if (options.repo || options.github) {
    if (dir) throw new CliError("Give either a folder or --repo/--github, not both.");
    const input = { ...(options.repo ? { repo: options.repo } : {}), ...(options.branch ? { branch: options.branch } : {}) };
    const result = unwrap((await api.graphql(DeployRepoMutation, { slug, input })).deployRepo);
    if (!("id" in result)) throw new CliError("Unexpected answer from the server.");
    deployment = result;
    print(`Deploying ${result.repo ?? "the app's repository"}${result.branch ? `#${result.branch}` : ""} to ${slug} (deployment ${result.id}).`);
  } else {
    if (options.branch) throw new CliError("--branch goes with --repo or --github.");
    deployment = await upload(api, slug, dir ?? ".");
    print(`Deploying to ${slug} (deployment ${deployment.id}).`);
  }
  if (!options.follow) return;

  const { followLogs } = await import("../stream.ts");
  const logs = followLogs(api, { slug, kind: "build", deployment: deployment.id }, null, (lines) => {
    for (const l of lines) print(l.stream === "system" ? color.cyan(l.line) : l.stream === "stderr" ? color.yellow(l.line) : l.line);
  });
  const streaming = logs.run();
  const outcome = await settle(api, slug, deployment.id);
  // The last lines may still be on their way: read them over HTTP before ending the stream.
  await new Promise((resolve) => setTimeout(resolve, 200));
  logs.stop();
  await streaming;
  await logs.catchUp();
  if (outcome.status === "LIVE") {
    print(`${color.green("✔")} ${slug} is live at ${color.bold(outcome.url)}`);
    return;
  }
  process.stderr.write(`${color.red("✖", process.stderr)} Deployment ${deployment.id} ${status(outcome.status)}${outcome.error ? `: ${outcome.error}` : ""}\n`);
  process.exitCode = 1;
}

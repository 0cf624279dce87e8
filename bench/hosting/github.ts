// Push-to-deploy latency: a signed GitHub push delivery → the new commit answers through the router, for a Node
// app with no dependencies in a real git repository served as GITHUB_URL (file://). Next to the zip figure,
// the difference is the cost of the webhook and of a shallow git fetch instead of an upload.
import { GitHubDouble, sendWebhook } from "../../test/helpers/git.ts";
import { nodeApp, percentile, type HostingClient } from "./client.ts";

const serving = (text: string) => `require("http").createServer((q, s) => s.end(${JSON.stringify(text)})).listen(process.env.PORT);`;

export async function benchPushDeploys(client: HostingClient, github: GitHubDouble, secret: string, count: number): Promise<string> {
  const slug = `bench-push-${process.pid}`;
  const repo = `bench/push-${process.pid}`;
  github.create(repo, nodeApp(serving("push 0")), "push 0");
  await client.api("POST", "/api/apps", { slug, repo, autoDeploy: true });
  const totals: number[] = [];
  const fetches: number[] = [];
  // One push first: an app's first start also creates its network namespace and cgroups.
  for (let i = 0; i <= count; i++) {
    const text = `push ${i + 1}`;
    const sha = github.commit(repo, nodeApp(serving(text)), text);
    const payload = { ref: "refs/heads/main", after: sha, repository: { full_name: repo }, head_commit: { id: sha, message: text } };
    const began = performance.now();
    const res = await sendWebhook(client.base, "push", payload, { secret });
    if (res.status !== 202 || res.body.deployments.length !== 1) throw new Error(`push ${i}: ${res.status} ${JSON.stringify(res.body)}`);
    await client.waitForAnswer(slug, text);
    const ms = performance.now() - began;
    const settled = await client.waitForSettled(slug, res.body.deployments[0].id);
    if (settled.status !== "LIVE") throw new Error(`push ${i}: ${settled.status} ${settled.error}`);
    console.log(`  push ${i}: ${ms.toFixed(0)} ms (${settled.steps.map((s) => `${s.name} ${s.ms}`).join(", ")})`);
    if (i === 0) continue;
    totals.push(ms);
    fetches.push(settled.steps.find((s) => s.name === "fetch")?.ms ?? 0);
  }
  return [
    `### Deploy from GitHub: signed push delivery → the new commit answers through the router (${count} pushes after a first one)`,
    "",
    "| | ms |",
    "|---|---:|",
    `| p50 | ${percentile(totals, 50).toFixed(0)} |`,
    `| p95 | ${percentile(totals, 95).toFixed(0)} |`,
    `| of which the fetch step (shallow git fetch + checkout), p50 | ${percentile(fetches, 50).toFixed(1)} |`,
    "",
    "The repository is a local bare repository (GITHUB_URL=file://…): network time to GitHub is not included.",
    "",
  ].join("\n");
}

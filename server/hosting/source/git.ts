// The git source: a shallow fetch of one branch or one commit of `${baseUrl}/<owner>/<name>.git` into the
// release folder. Rules:
// - owner and name match ^[A-Za-z0-9_.-]+$ and are never "." or "..": the URL cannot climb out of baseUrl;
// - a branch is a plain branch name (no leading "-", no ".."), fetched as refs/heads/<branch>; a commit is a
//   full hex sha; both come after --end-of-options, so nothing reaches git as an option;
// - one commit only (--depth 1), no tags, no submodules, no hooks, no user or system git config;
// - the token travels as an HTTP header of that one command (git-command.ts), and is redacted from output;
// - the .git folder is removed: the release is the working tree at that commit (the deployment records the
//   sha), and history never ends up served by a static site;
// - files are checked out as git stores them, symbolic links included: the builders read files without
//   following links and the static router refuses links out of the release.
import fs from "node:fs/promises";
import path from "node:path";
import { DeployError } from "../errors.ts";
import { REDACTED } from "../logs/redact.ts";
import { runGit, type GitRun } from "./git-command.ts";
import { stageInto } from "./staging.ts";
import type { Source } from "./types.ts";

const REPO_PART = /^[A-Za-z0-9_.-]+$/;
const COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const BRANCH = /^[A-Za-z0-9._/-]{1,255}$/;

export interface GitSourceOptions {
  baseUrl: string;
  repo: string;
  branch?: string | null;
  commit?: string | null;
  /** A GitHub token for private repositories, or none. */
  token?: string | null;
  /** When git must be done (the build deadline). */
  deadline: number;
  signal: AbortSignal;
}

export interface CheckedOut {
  commit: string;
  message: string;
}

export function isRepoName(repo: string): boolean {
  const parts = repo.split("/");
  return parts.length === 2 && parts.every((p) => REPO_PART.test(p) && p !== "." && p !== ".." && !p.includes(".."));
}

export function isSafeBranch(branch: string): boolean {
  return BRANCH.test(branch) && !branch.startsWith("-") && !branch.startsWith("/") && !branch.includes("..") && !branch.includes("//") && !branch.endsWith(".lock");
}

export const isCommitSha = (commit: string) => COMMIT.test(commit);

export function repoUrl(baseUrl: string, repo: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/${repo}.git`;
}

export class GitSource implements Source {
  readonly description: string;
  /** Set once fetched: the commit checked out and its subject line. */
  checkedOut?: CheckedOut;

  constructor(private readonly options: GitSourceOptions) {
    const { repo, branch, commit } = options;
    if (!isRepoName(repo)) throw new DeployError(`"${repo}" is not a repository name: use owner/name.`);
    if (commit != null && !isCommitSha(commit)) throw new DeployError(`"${commit}" is not a full commit sha (40 hexadecimal characters).`);
    if (commit == null && (branch == null || !isSafeBranch(branch))) throw new DeployError(`"${branch ?? ""}" is not a branch name git accepts.`);
    this.description = `${repo}@${commit ? commit.slice(0, 7) : branch}`;
  }

  async fetch(destDir: string, log: (line: string) => void): Promise<void> {
    const { repo, branch, commit, token } = this.options;
    const redact = (line: string) => (token ? line.split(token).join(REDACTED) : line);
    await stageInto(destDir, async (dir) => {
      const run: GitRun = {
        cwd: dir,
        authorization: token ? `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}` : undefined,
        deadline: this.options.deadline,
        signal: this.options.signal,
        log,
        redact,
      };
      await mustSucceed(runGit(["init", "--quiet", "--template=", "."], run), "Could not prepare the checkout.");
      const want = commit ?? `refs/heads/${branch}`;
      const fetched = await runGit(["fetch", "--depth=1", "--no-tags", "--no-recurse-submodules", "--progress", "--end-of-options", repoUrl(this.options.baseUrl, repo), want], run);
      if (fetched.code !== 0) throw new DeployError(fetchFailure(fetched.lines, repo, branch, commit, !!token));
      await mustSucceed(runGit(["-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", "FETCH_HEAD"], run), "Could not check out the fetched commit.");
      const head = await runGit(["log", "-1", "--format=%H%n%s", "FETCH_HEAD"], { ...run, log: () => {} });
      const [sha = "", message = ""] = head.lines;
      this.checkedOut = { commit: sha, message };
      await fs.rm(path.join(dir, ".git"), { recursive: true, force: true });
    });
    log(`Checked out ${repo}@${this.checkedOut!.commit.slice(0, 7)}: ${this.checkedOut!.message}`);
  }
}

async function mustSucceed(result: Promise<{ code: number }>, message: string): Promise<void> {
  if ((await result).code !== 0) throw new DeployError(message);
}

/** What the user can act on, from git's own words. */
function fetchFailure(lines: string[], repo: string, branch: string | null | undefined, commit: string | null | undefined, withToken: boolean): string {
  const output = lines.join("\n");
  if (/couldn't find remote ref/i.test(output)) return `The branch "${branch}" does not exist in ${repo}.`;
  if (commit && /not our ref|no such remote ref|unadvertised object|upload-pack: not/i.test(output)) {
    return `The commit ${commit} was not found in ${repo}.`;
  }
  if (/authentication failed|could not read username|terminal prompts disabled|repository .* not found|does not appear to be a git repository|returned error: 40[134]/i.test(output)) {
    return withToken
      ? `Could not read ${repo}: it does not exist, or the GitHub token cannot read it.`
      : `Could not read ${repo}: it does not exist, or it is private (set a GitHub token for the app).`;
  }
  if (commit) return `The commit ${commit} could not be fetched from ${repo}.`;
  return `Could not fetch ${repo}: see the build log.`;
}

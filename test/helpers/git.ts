// Real git repositories for GitHub deploy tests: a working repository per project, pushed to bare
// repositories laid out like GitHub (`<base>/<owner>/<name>.git`), served as a file:// directory and over smart
// HTTP by git http-backend behind a small server that requires a token (HTTP Basic, any user, password = token).
import { execFileSync, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "Test", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "Test", GIT_COMMITTER_EMAIL: "t@example.com" };

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8" }).trim();
}

export class GitHubDouble {
  /** file:// base URL: `<base>/<owner>/<name>.git` are bare repositories. */
  readonly base: string;
  private readonly work: string;

  constructor() {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-git-"));
    this.base = path.join(root, "github");
    this.work = path.join(root, "work");
    fs.mkdirSync(this.base);
    fs.mkdirSync(this.work);
  }

  get fileUrl(): string {
    return `file://${this.base}`;
  }

  /** Creates owner/name with one commit of `files` on `branch`; returns the commit sha. */
  create(repo: string, files: Record<string, string>, message = "first", branch = "main"): string {
    const dir = path.join(this.work, repo);
    fs.mkdirSync(dir, { recursive: true });
    git(dir, "init", "--quiet", "-b", branch);
    const bare = path.join(this.base, `${repo}.git`);
    fs.mkdirSync(path.dirname(bare), { recursive: true });
    git(path.dirname(bare), "init", "--quiet", "--bare", bare);
    git(bare, "config", "http.receivepack", "false");
    git(dir, "remote", "add", "origin", bare);
    return this.commit(repo, files, message, branch);
  }

  /** Commits `files` (written over the tree) on `branch` and pushes; returns the sha. */
  commit(repo: string, files: Record<string, string>, message: string, branch = "main"): string {
    const dir = path.join(this.work, repo);
    const current = git(dir, "symbolic-ref", "--short", "HEAD");
    if (current !== branch) git(dir, "checkout", "--quiet", "-B", branch);
    for (const [name, contents] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), contents);
    }
    git(dir, "add", "--all");
    git(dir, "commit", "--quiet", "-m", message);
    git(dir, "push", "--quiet", "--force", "origin", `${branch}:refs/heads/${branch}`);
    return git(dir, "rev-parse", "HEAD");
  }

  /** Pushes the current commit of `branch` as GitHub's refs/pull/<n>/head. */
  pullRef(repo: string, number: number, branch: string): void {
    git(path.join(this.work, repo), "push", "--quiet", "--force", "origin", `${branch}:refs/pull/${number}/head`);
  }

  /** Serves the bare repositories over smart HTTP; every request must carry one of `tokens` as the Basic password. */
  async serveHttp(tokens: string[]): Promise<{ url: string; requests: { token: string; authorized: boolean; url: string }[]; close(): Promise<void> }> {
    const requests: { token: string; authorized: boolean; url: string }[] = [];
    const server = http.createServer((req, res) => {
      const auth = req.headers.authorization ?? "";
      const password = auth.startsWith("Basic ") ? Buffer.from(auth.slice(6), "base64").toString().split(":").slice(1).join(":") : "";
      const authorized = tokens.includes(password);
      requests.push({ token: password, authorized, url: req.url ?? "" });
      if (!authorized) {
        res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"' }).end();
        return;
      }
      const url = new URL(req.url ?? "/", "http://x");
      const cgi = spawn("/usr/lib/git-core/git-http-backend", [], {
        env: {
          PATH: process.env.PATH,
          GIT_PROJECT_ROOT: this.base,
          GIT_HTTP_EXPORT_ALL: "1",
          GIT_CONFIG_NOSYSTEM: "1",
          GIT_CONFIG_GLOBAL: "/dev/null",
          REQUEST_METHOD: req.method,
          PATH_INFO: decodeURIComponent(url.pathname),
          QUERY_STRING: url.search.slice(1),
          CONTENT_TYPE: req.headers["content-type"] ?? "",
          GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
          HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"] ?? ""),
          REMOTE_ADDR: "127.0.0.1",
        },
      });
      req.pipe(cgi.stdin);
      let head: Buffer | null = Buffer.alloc(0);
      cgi.stdout.on("data", (chunk: Buffer) => {
        if (!head) return void res.write(chunk);
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf("\r\n\r\n");
        if (end === -1) return;
        let status = 200;
        for (const line of head.subarray(0, end).toString().split("\r\n")) {
          const [name, ...rest] = line.split(":");
          const value = rest.join(":").trim();
          if (name.toLowerCase() === "status") status = Number(value.split(" ")[0]);
          else res.setHeader(name, value);
        }
        res.writeHead(status);
        res.write(head.subarray(end + 4));
        head = null;
      });
      cgi.stdout.on("end", () => res.end());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      requests,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }
}

/** Sends a webhook delivery like GitHub's: JSON body, event and delivery headers, the HMAC signature. */
export async function sendWebhook(baseUrl: string, event: string, payload: unknown, options: { secret?: string; delivery?: string; signature?: string | null } = {}) {
  const body = typeof payload === "string" ? payload : JSON.stringify(payload);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-github-event": event,
    "x-github-delivery": options.delivery ?? crypto.randomUUID(),
    "user-agent": "GitHub-Hookshot/test",
  };
  const signature = options.signature !== undefined ? options.signature : options.secret ? `sha256=${createHmac("sha256", options.secret).update(body).digest("hex")}` : null;
  if (signature) headers["x-hub-signature-256"] = signature;
  const res = await fetch(`${baseUrl}/api/github/webhook`, { method: "POST", headers, body });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

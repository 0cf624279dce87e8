// `npm run admin` as an operator runs it: a real process against a test server's database and data folder.
import { spawn } from "node:child_process";

export function runAdminScript(env: Record<string, string>, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn("npm", ["run", "--silent", "admin", "--", ...args], { env: { ...process.env, LOG_LEVEL: "silent", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

// The CLI without a server: --help on every command, shell completion, usage errors, and no colour codes
// off a terminal (with or without NO_COLOR).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cliHome, runCli } from "./helpers.ts";

const COMMANDS = ["login", "logout", "whoami", "apps", "apps:create", "apps:info", "apps:delete", "apps:sleep", "link", "deploy", "logs", "metrics", "run", "runs", "runs:cancel", "cron", "cron:run", "env", "env:set", "env:unset", "domains", "domains:add", "domains:verify", "domains:remove", "drains", "drains:add", "drains:remove", "webhooks", "webhooks:add", "webhooks:test", "webhooks:deliveries", "webhooks:remove", "stop", "restart", "rollback", "ps", "ps:scale", "healthcheck", "healthcheck:set", "healthcheck:unset", "quota", "quota:request", "quota:requests", "db:create", "db:list", "db:delete", "db:backup", "db:backups", "db:restore", "db:url", "cdn:upload", "cdn:list", "cdn:delete", "completion"];
const home = cliHome();

describe("slipway --help", () => {
  it("lists every command, and every command has its own --help", async () => {
    const top = await runCli(home, ["--help"]);
    expect(top.code).toBe(0);
    for (const command of COMMANDS) expect(top.stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
    const helps = await Promise.all(COMMANDS.map((command) => runCli(home, [command, "--help"])));
    for (const [i, help] of helps.entries()) {
      expect(help.code, COMMANDS[i]).toBe(0);
      expect(help.stdout).toContain(`Usage: slipway ${COMMANDS[i]}`);
    }
    expect(helps[COMMANDS.indexOf("apps")].stdout).toContain("--json");
    expect(helps[COMMANDS.indexOf("db:create")].stdout).toMatch(/--type <type>[\s\S]*choices:\s+"postgres", "sqlite"/);
    expect(helps[COMMANDS.indexOf("quota:request")].stdout).toMatch(/--cdn-bytes <size>[\s\S]*--reason <text>/);
    expect(helps[COMMANDS.indexOf("logs")].stdout).toMatch(/-f, --follow[\s\S]*-n, --lines <n>/);
  });

  it("refuses an unknown command or a missing argument with exit 1", async () => {
    const unknown = await runCli(home, ["deploi"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("unknown command 'deploi'");
    const missing = await runCli(home, ["apps:create"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("missing required argument 'slug'");
    const lines = await runCli(home, ["logs", "-n", "0", "--app", "x"]);
    expect(lines.code).toBe(1);
    expect(lines.stderr).toContain("-n takes a number of lines from 1 to 1000");
  });

  it("prints no colour codes off a terminal, even without NO_COLOR", async () => {
    const result = await runCli(home, ["whoami"], { env: { NO_COLOR: undefined } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("Error: You are not logged in. Run `slipway login` (or set SLIPWAY_TOKEN).\n");
  });
});

describe("slipway completion", () => {
  it("prints a bash script that bash accepts, completing every command and each command's options", async () => {
    const result = await runCli(home, ["completion", "bash"]);
    expect(result.code).toBe(0);
    for (const command of COMMANDS) expect(result.stdout).toContain(command);
    expect(result.stdout).toContain('deploy) opts="--app -a --repo --branch --github --no-follow --server --help"');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "slipway-completion-")), "slipway.bash");
    fs.writeFileSync(file, result.stdout);
    // Load it and ask for completions as bash would on <Tab> (after "apps:" bash completes the part after the colon).
    const complete = (line: string) =>
      execFileSync("bash", ["-c", `source ${JSON.stringify(file)}; COMP_LINE=${JSON.stringify(line)}; COMP_POINT=${line.length}; _slipway; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: "utf8" }).trim().split("\n");
    expect(complete("slipway ap")).toEqual(["apps", "apps:create", "apps:info", "apps:delete", "apps:sleep"]);
    expect(complete("slipway apps:c")).toEqual(["create"]);
    expect(complete("slipway logs --f")).toEqual(["--follow"]);
    expect(complete("slipway deploy ")).toContain("--no-follow");
    expect(complete("slipway db:b")).toEqual(["backup", "backups"]);
    expect(complete("slipway db:restore --")).toEqual(["--app", "--yes", "--json", "--server", "--help"]);
    expect(complete("slipway quota:request --c")).toEqual(["--cdn-bytes"]);
    expect(complete("slipway cdn:")).toEqual(["upload", "list", "delete"]);
    expect(complete("slipway drains:")).toEqual(["add", "remove"]);
    const zsh = await runCli(home, ["completion", "zsh"]);
    expect(zsh.stdout).toContain("bashcompinit");
    const fish = await runCli(home, ["completion", "fish"]);
    expect(fish.code).toBe(1);
    expect(fish.stderr).toContain("use bash or zsh");
  });
});

// The `slipway` command tree, with each command's code imported only when it runs so
// that `slipway --help` starts fast (only commander is loaded up front).
import { packageVersion } from "./env.ts";
import { Command, Option } from "commander";

type Action = (...args: any[]) => unknown;
/** The command's arguments, then its options merged with the global ones (--server). */
const lazy =
  (load: () => Promise<Record<string, Action>>, name: string) =>
  async (...args: unknown[]) => {
    const command = args.at(-1) as Command;
    const positional = args.slice(0, -2);
    const module = await load();
    await module[name](...positional, command.optsWithGlobals());
  };

const auth = () => import("./commands/auth.ts");
const apps = () => import("./commands/apps.ts");
const deploy = () => import("./commands/deploy.ts");
const logs = () => import("./commands/logs.ts");
const env = () => import("./commands/env.ts");
const domains = () => import("./commands/domains.ts");
const webhooks = () => import("./commands/webhooks.ts");
const drains = () => import("./commands/drains.ts");
const lifecycle = () => import("./commands/lifecycle.ts");
const db = () => import("./commands/db.ts");
const quota = () => import("./commands/quota.ts");
const cdn = () => import("./commands/cdn.ts");
const completion = () => import("./commands/completion.ts");
const healthcheck = () => import("./commands/healthcheck.ts");
const runs = () => import("./commands/runs.ts");
const cron = () => import("./commands/cron.ts");
const metrics = () => import("./commands/metrics.ts");

export function buildProgram(): Command {
  const program = new Command("slipway")
    .description("Deploy and manage apps on a Slipway server.")
    .version(packageVersion(), "-V, --version")
    .option("--server <url>", "the Slipway server (default: the one you logged in to, or SLIPWAY_SERVER)")
    .showHelpAfterError("(run with --help for usage)")
    .addHelpText(
      "after",
      `
Environment:
  SLIPWAY_TOKEN    an access token to use instead of the stored login (CI)
  SLIPWAY_SERVER   the server, when not given with --server
  NO_COLOR         turn colours off

Start with \`slipway login --server https://slipway.example.com\`.`,
    );

  const app = new Option("-a, --app <slug>", "the app (default: from slipway.json)");
  const json = new Option("--json", "print JSON for scripts");

  program
    .command("login")
    .description("log in with your browser (OAuth device flow)")
    .option("--no-browser", "do not open a browser; print the address to visit")
    .action(lazy(auth, "login"));
  program.command("logout").description("revoke and forget the stored login").action(lazy(auth, "logout"));
  program.command("whoami").description("the account you are logged in as").addOption(json).action(lazy(auth, "whoami"));

  program.command("apps").description("list your apps").addOption(json).action(lazy(apps, "list"));
  program
    .command("apps:create <slug>")
    .description("create an app and link this folder to it (slipway.json)")
    .option("--name <name>", "display name (default: the slug)")
    .option("--repo <owner/name>", "GitHub repository to deploy from")
    .option("--branch <branch>", "the repository's branch (default main)")
    .option("--no-link", "do not write slipway.json")
    .addOption(json)
    .action(lazy(apps, "create"));
  program.command("apps:info").description("an app's status, URL and recent deployments").addOption(app).addOption(json).action(lazy(apps, "info"));
  program
    .command("apps:delete <slug>")
    .description("delete an app with its releases, env vars, logs and databases")
    .option("-y, --yes", "do not ask to type the slug")
    .action(lazy(apps, "remove"));
  program
    .command("apps:sleep <minutes>")
    .description("sleep after this many minutes without a request (1-10080), the next request waking it; `off`: never sleep")
    .addOption(app)
    .option("--workers", "the other process types sleep too (they keep running by default)")
    .addOption(json)
    .action(lazy(apps, "sleep"));
  program.command("link <slug>").description("link this folder to an app (writes slipway.json)").action(lazy(apps, "link"));

  program
    .command("deploy [dir]")
    .description("deploy a folder (zipped, honouring .gitignore and .slipwayignore) or a GitHub repository")
    .addOption(app)
    .option("--repo <owner/name>", "deploy this GitHub repository instead of a folder")
    .option("--branch <branch>", "with --repo (or the app's repository): the branch")
    .option("--github", "deploy the app's own GitHub repository and branch")
    .option("--no-follow", "do not stream the build log; exit once the deployment is queued")
    .action(lazy(deploy, "deploy"));

  program
    .command("logs")
    .description("recent log lines; -f follows them live")
    .addOption(app)
    .option("--build", "the latest deployment's build log instead of the runtime log")
    .option("--run <id>", "a one-off run's output instead of the runtime log")
    .option("-f, --follow", "keep streaming new lines")
    .option("-n, --lines <n>", "how many recent lines (1-1000)", "100")
    .addOption(json)
    .action(lazy(logs, "logs"));
  program
    .command("metrics")
    .description("the app's CPU, memory, requests, 5xx and latency: the latest value and a sparkline of each")
    .addOption(app)
    .option("--since <duration>", "how far back: 30m, 1h, 1d, 7d", "1h")
    .addOption(json)
    .action(lazy(metrics, "metrics"));

  program
    .command("run <command...>")
    .description("run a command once in the app's live release, sandboxed like its processes; streams its output and exits with its code")
    .addOption(app)
    .option("--timeout <seconds>", "kill it with every process it started after this long, 1-86400 (default 3600)")
    .option("--detach", "print the run's id and exit at once")
    .option("--no-tty", "stream its output instead of attaching a terminal (the default on a terminal)")
    // From its first word on, the command's own words and options (cli/run-argv.ts puts a -- there).
    .action(lazy(runs, "run"));
  program.command("runs").description("the app's recent one-off runs").addOption(app).addOption(json).action(lazy(runs, "list"));
  program.command("runs:cancel <id>").description("kill a run with every process it started").addOption(app).action(lazy(runs, "cancel"));
  program.command("cron").description("the live release's app.json cron jobs (UTC): next run, last run's status and exit code").addOption(app).addOption(json).action(lazy(cron, "list"));
  program
    .command("cron:run <id>")
    .description("run a cron job now; streams its output and exits with its code")
    .addOption(app)
    .option("--detach", "print the run's id and exit at once")
    .action(lazy(cron, "run"));

  program.command("env").description("list environment variables").addOption(app).addOption(json).action(lazy(env, "list"));
  program.command("env:set <pairs...>").description("set KEY=VALUE (or KEY=@file to read the value from a file)").addOption(app).action(lazy(env, "set"));
  program.command("env:unset <keys...>").description("remove variables").addOption(app).action(lazy(env, "unset"));

  program.command("domains").description("the app's custom domains, their DNS record and state").addOption(app).addOption(json).action(lazy(domains, "list"));
  program
    .command("domains:add <hostname>")
    .description("add a custom domain: prints the DNS record to create and how control is proven")
    .addOption(app)
    .addOption(json)
    .action(lazy(domains, "add"));
  program.command("domains:verify <hostname>").description("check a pending domain's challenges now").addOption(app).addOption(json).action(lazy(domains, "verify"));
  program.command("domains:remove <hostname>").description("remove a custom domain: it stops reaching the app at once").addOption(app).action(lazy(domains, "remove"));

  program.command("drains").description("the app's log drains: where its build, runtime and run lines are forwarded").addOption(app).addOption(json).action(lazy(drains, "list"));
  program
    .command("drains:add <url>")
    .description("forward the app's log lines to syslog://host:port, syslog+tls://host:port or https://…")
    .addOption(app)
    .addOption(json)
    .action(lazy(drains, "add"));
  program.command("drains:remove <id>").description("stop forwarding the app's log lines to a drain").addOption(app).action(lazy(drains, "remove"));

  program.command("webhooks").description("your webhooks: where Slipway POSTs deploy, crash, run, domain and quota events").addOption(json).action(lazy(webhooks, "list"));
  program
    .command("webhooks:add <url>")
    .description("add a webhook; prints its signing secret, shown once")
    .requiredOption("--events <names>", "comma-separated: deploy.succeeded, deploy.failed, app.crashed, run.failed, domain.verified, quota.decided")
    .option("--description <text>", "a note to tell webhooks apart")
    .addOption(json)
    .action(lazy(webhooks, "add"));
  program.command("webhooks:test <id>").description('send a "ping" delivery now').addOption(json).action(lazy(webhooks, "test"));
  program.command("webhooks:deliveries <id>").description("a webhook's delivery log, newest first").addOption(json).action(lazy(webhooks, "deliveries"));
  program.command("webhooks:remove <id>").description("delete a webhook and its delivery log").action(lazy(webhooks, "remove"));

  program.command("stop").description("stop the app").addOption(app).action(lazy(lifecycle, "stop"));
  program.command("restart").description("start the live release again").addOption(app).action(lazy(lifecycle, "restart"));
  program.command("rollback [deployment]").description("start a kept release again (default: the one before the live one)").addOption(app).action(lazy(lifecycle, "rollback"));
  program
    .command("ps")
    .description("the app's status, release, restarts and uptime, then each process type's instances (web.1, worker.1, …)")
    .addOption(app)
    .addOption(json)
    .action(lazy(lifecycle, "ps"));
  program
    .command("ps:scale <type=n...>")
    .description("run this many instances of each process type: web=2 worker=1 (0 stops a type but web; a bare number scales web)")
    .addOption(app)
    .action(lazy(lifecycle, "scale"));
  program.command("healthcheck").description("the health check in force, and where it comes from").addOption(app).addOption(json).action(lazy(healthcheck, "show"));
  program
    .command("healthcheck:set")
    .description("the app's own health check (over its app.json's): a path to GET, or a TCP connect to PORT")
    .option("--path <path>", "GET this path; a 2xx or 3xx status passes (e.g. /healthz)")
    .option("--tcp", "a TCP connect to PORT instead of a path")
    .option("--interval <seconds>", "how often, 1-300 (default 5)")
    .option("--timeout <seconds>", "how long one check may take, 1-60 (default 2)")
    .addOption(app)
    .addOption(json)
    .action(lazy(healthcheck, "set"));
  program.command("healthcheck:unset").description("drop the app's own health check: its app.json's, or the default, applies").addOption(app).addOption(json).action(lazy(healthcheck, "unset"));
  program.command("quota").description("your limits and what you use").addOption(json).action(lazy(lifecycle, "quota"));

  program
    .command("quota:request")
    .description("ask an administrator for higher limits (sizes like 2GiB; one pending request at a time)")
    .option("--apps <n>", "how many apps")
    .option("--databases <n>", "how many databases")
    .option("--instances <n>", "most instances of one app")
    .option("--requests-per-minute <n>", "API requests per minute")
    .option("--cdn-bytes <size>", "CDN storage, e.g. 2GiB")
    .option("--upload-bytes <size>", "largest upload (deploy zip, CDN file), e.g. 200MiB")
    .option("--reason <text>", "why you need them (asked for on a terminal when missing)")
    .addOption(json)
    .action(lazy(quota, "request"));
  program.command("quota:requests").description("your limit requests and their decisions").addOption(json).action(lazy(quota, "requests"));

  const yes = new Option("-y, --yes", "do not ask to type the database's name");
  program
    .command("db:create")
    .description("create a database for the app; its URL becomes an env var and the app restarts")
    .addOption(app)
    .addOption(new Option("--type <type>", "the database type (default: the platform's)").choices(["postgres", "sqlite"]))
    .option("--name <name>", "1-30 of a-z, 0-9 and _ (default main, then db2…)")
    .addOption(json)
    .action(lazy(db, "create"));
  program.command("db:list").description("the app's databases").addOption(app).addOption(json).action(lazy(db, "list"));
  program.command("db:delete <db>").description("drop a database (by name or id) with its data and backups").addOption(app).addOption(yes).action(lazy(db, "remove"));
  program.command("db:backup <db>").description("back a database up now; prints the backup's id and size").addOption(app).addOption(json).action(lazy(db, "backup"));
  program.command("db:backups <db>").description("a database's backups, newest first").addOption(app).addOption(json).action(lazy(db, "backups"));
  program
    .command("db:restore <db> <backup>")
    .description("put a backup back into its database (the app is stopped meanwhile)")
    .addOption(app)
    .addOption(yes)
    .addOption(json)
    .action(lazy(db, "restore"));
  program.command("db:url <db>").description("reveal a database's connection URL, password included").addOption(app).action(lazy(db, "url"));

  program
    .command("cdn:upload <file>")
    .description("upload a file to the CDN and print its public URL")
    .option("--name <name>", "the file's name (default: its name on disk)")
    .option("--type <content-type>", "the media type to serve it with (default: from its extension)")
    .addOption(json)
    .action(lazy(cdn, "upload"));
  program.command("cdn:list").description("your CDN files, newest first").addOption(json).action(lazy(cdn, "list"));
  program
    .command("cdn:delete <file>")
    .description("delete a CDN file (by id, or by name when only one has it)")
    .option("-y, --yes", "do not ask for confirmation")
    .action(lazy(cdn, "remove"));

  program
    .command("completion [shell]")
    .description("print a bash or zsh completion script (eval \"$(slipway completion bash)\")")
    .action(lazy(completion, "completion"));
  return program;
}

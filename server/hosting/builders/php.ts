// PHP projects (composer.json, or index.php at the top or in public/):
// - with a composer.json: `composer install --no-dev --optimize-autoloader`, its cache in the app's build cache;
//   vendor/ is copied from the previous release instead when composer.lock (and the PHP) is unchanged, and only the
//   autoloader is dumped again (it maps the project's own classes, which change with every release). A server
//   without composer fails such a build naming the package to install;
// - served on $PORT by php-fpm behind Caddy, both inside the app's sandbox: php-fpm (unprivileged, a few workers
//   started on demand) listens on a unix socket in the sandbox's private /tmp, and Caddy serves public/ when it
//   exists, else the top, sending .php to php-fpm and anything else as a file (.env, VCS folders and the platform's
//   own files hidden; .well-known/ served). Their configuration is written into the release's .slipway/ folder,
//   which the platform owns;
// - the sandbox sees no /etc/php, so the host's php.ini and conf.d (which load Debian's shared extensions: mbstring,
//   ctype, PDO, opcache…) are copied into .slipway/ as one file per SAPI: php-fpm reads the fpm one, and composer and
//   every other php command of the release the cli one (PHPRC).
// Every process of the release finds that PHP as `php` (.slipway/bin/php, first on PATH: /usr/bin/php is a link into
// /etc/alternatives, which sandboxes do not see). The web process is a constant shell line: php-fpm in the
// background, then exec caddy.
import { readdirSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { BuildError } from "./errors.ts";
import { depsHash, recordDeps, reuseDependencies } from "./dependency-reuse.ts";
import { hasProjectFile, readProjectFile, writeProjectFile } from "./files.ts";
import { missingToolchainMessage } from "./toolchains.ts";
import type { BuildContext, BuildPlan, Builder, Toolchain } from "./types.ts";

const HOST_PHP = "/usr/bin/php";
const CADDY = "/usr/bin/caddy";
const COMPOSER: Toolchain = { command: "/usr/bin/composer", debianPackage: "composer" };
/** Debian names php-fpm after its version (php-fpm8.2); found once, when the builders are loaded. */
export const PHP_FPM = findPhpFpm();
/** The platform's folder in the release: rebuilt by every build, whatever the project held there. */
const OWN = ".slipway";
const IN_APP = `/app/${OWN}`;
const CLI_INI = `${IN_APP}/php-cli.ini`;
const COMPOSER_FLAGS = ["--no-dev", "--optimize-autoloader", "--no-interaction", "--no-progress"];
/**
 * php-fpm in the background ("$0", the host's php-fpm, is never part of this text), then Caddy in the foreground
 * once php-fpm's socket is there (up to 5 s): Caddy listening first would answer the first requests with 502.
 */
const SERVE =
  `"$0" --nodaemonize --force-stderr --fpm-config ${IN_APP}/php-fpm.conf -c ${IN_APP}/php-fpm.ini & ` +
  `i=0; while [ ! -S /tmp/php-fpm.sock ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done; ` +
  `export XDG_CONFIG_HOME=/tmp/caddy XDG_DATA_HOME=/tmp/caddy; exec ${CADDY} run --config ${IN_APP}/Caddyfile --adapter caddyfile`;

export const phpBuilder: Builder = {
  name: "php",
  looksFor: "composer.json or index.php",
  toolchains: [
    // The extensions the host's php.ini loads (php8.2-mbstring, php8.2-pgsql…), copied into every release.
    { command: HOST_PHP, debianPackage: "php-cli", addOns: /^php\d+\.\d+-/ },
    { command: PHP_FPM, debianPackage: "php-fpm" },
    { command: CADDY, debianPackage: "caddy" },
  ],
  optionalToolchains: [COMPOSER],
  async detect(ctx) {
    const composerJson = await readProjectFile(ctx.dir, "composer.json", 1024 ** 2);
    const hasIndex = (await hasProjectFile(ctx.dir, "index.php")) || (await hasPublicIndex(ctx.dir));
    if (!composerJson && !hasIndex) return null;
    const version = /php-fpm(\d+\.\d+)$/.exec(PHP_FPM)?.[1] ?? "";
    const { php, phpEnv } = await prepareOwnFolder(ctx, version);
    const steps = composerJson ? await composerSteps(ctx, { composerJson, php, phpEnv, version }) : [];
    if (!composerJson) await recordDeps(ctx.dir, null);
    const root = (await isFolder(path.join(ctx.dir, "public"))) ? "/app/public" : "/app";
    ctx.log(`Serving ${root === "/app" ? "the top of the project" : "public/"} with php-fpm ${version} behind Caddy.`);
    await writeProjectFile(path.join(ctx.dir, OWN), "php-fpm.conf", fpmConfig());
    await writeProjectFile(path.join(ctx.dir, OWN), "Caddyfile", caddyfile(root));
    return { builder: "php", steps, web: { kind: "process", argv: ["/bin/sh", "-c", SERVE, PHP_FPM], shown: `php-fpm behind caddy, serving ${root} on $PORT` }, processEnv: phpEnv };
  },
};

/** A fresh .slipway/ (whatever the project held there, a link included, is removed first) with `php` and the ini files. */
async function prepareOwnFolder(ctx: BuildContext, version: string): Promise<{ php: string; phpEnv: Record<string, string> }> {
  await fs.rm(path.join(ctx.dir, OWN), { recursive: true, force: true });
  await fs.mkdir(path.join(ctx.dir, OWN, "bin"), { recursive: true, mode: 0o755 });
  const php = await hostPhp(version);
  await fs.symlink(php, path.join(ctx.dir, OWN, "bin/php"));
  const copiedIni = await writeHostIni(ctx, version);
  return { php, phpEnv: { PATH: `${IN_APP}/bin:/usr/bin:/bin`, ...(copiedIni ? { PHPRC: CLI_INI, PHP_INI_SCAN_DIR: "" } : {}) } };
}

interface ComposerRun {
  composerJson: Buffer;
  /** The PHP that runs composer (/usr/bin/composer's #!/usr/bin/php goes through /etc/alternatives, which sandboxes lack). */
  php: string;
  phpEnv: Record<string, string>;
  version: string;
}

async function composerSteps(ctx: BuildContext, { composerJson, php, phpEnv, version }: ComposerRun): Promise<BuildPlan["steps"]> {
  // Only projects with a composer.json need composer, so it is not among the builder's (static) toolchains.
  if (!(await fs.access(COMPOSER.command, fs.constants.X_OK).then(() => true, () => false))) throw new BuildError(missingToolchainMessage(phpBuilder, [COMPOSER]));
  const env = { ...phpEnv, COMPOSER_HOME: `${ctx.cachePath}/composer`, COMPOSER_CACHE_DIR: `${ctx.cachePath}/composer/cache` };
  const install = { label: "composer install", argv: [php, COMPOSER.command, "install", ...COMPOSER_FLAGS], env };
  const lock = await readProjectFile(ctx.dir, "composer.lock", 64 * 1024 ** 2);
  if (!lock) {
    ctx.log("No composer.lock: composer resolves versions afresh (commit composer.lock for repeatable builds).");
    await recordDeps(ctx.dir, null);
    return [install];
  }
  const hash = depsHash([composerJson, lock], install.argv, [PHP_FPM, version]);
  // composer dump-autoload rewrites vendor/autoload.php and vendor/composer/ in place.
  const reused = await reuseDependencies(ctx, { folder: "vendor", hash, source: "composer.lock", skipping: "composer install", writtenAfter: true });
  if (!reused) return [{ ...install, label: "composer install (composer.lock found)" }];
  return [{ label: "composer dump-autoload", argv: [php, COMPOSER.command, "dump-autoload", "--optimize", "--no-dev", "--no-interaction"], env }];
}

/**
 * The PHP CLI of php-fpm's version (/usr/bin/php8.2), linked as .slipway/bin/php, first on PATH: /usr/bin/php is a link
 * into /etc/alternatives, which sandboxes do not see.
 */
async function hostPhp(version: string): Promise<string> {
  const versioned = `/usr/bin/php${version}`;
  if (version && (await fs.access(versioned, fs.constants.X_OK).then(() => true, () => false))) return versioned;
  return fs.realpath(HOST_PHP).catch(() => HOST_PHP);
}

/** The host's php.ini and conf.d/*.ini of both SAPIs, one file each in .slipway/; false when the host has none. */
async function writeHostIni(ctx: BuildContext, version: string): Promise<boolean> {
  let copied = false;
  for (const sapi of ["fpm", "cli"]) {
    const dir = `/etc/php/${version}/${sapi}`;
    const confD = (await fs.readdir(path.join(dir, "conf.d")).catch(() => [] as string[])).filter((f) => f.endsWith(".ini")).sort();
    const files = [path.join(dir, "php.ini"), ...confD.map((f) => path.join(dir, "conf.d", f))];
    const parts: string[] = [];
    for (const file of files) {
      const text = await fs.readFile(file, "utf8").catch(() => null);
      if (text !== null) parts.push(`; ${file}\n${text}\n`);
    }
    if (!parts.length) continue;
    await writeProjectFile(path.join(ctx.dir, OWN), `php-${sapi}.ini`, parts.join(""));
    copied = true;
  }
  if (!copied) ctx.log(`No /etc/php/${version} on this server: PHP runs with its built-in defaults and extensions only.`);
  return copied;
}

/** One pool, unprivileged (no user directive), on a unix socket in the sandbox's /tmp; workers log to stderr. */
export function fpmConfig(): string {
  return `[global]
pid = /tmp/php-fpm.pid
error_log = /dev/null
daemonize = no

[app]
listen = /tmp/php-fpm.sock
pm = ondemand
pm.max_children = 5
pm.process_idle_timeout = 30s
clear_env = no
catch_workers_output = yes
decorate_workers_output = no
`;
}

/** Caddy on $PORT: .php to php-fpm, other files served as they are but secrets, no admin endpoint, no HTTPS (the router terminates it). */
export function caddyfile(root: "/app" | "/app/public"): string {
  return `{
	admin off
	auto_https off
	log {
		output stderr
		level WARN
	}
}

:{$PORT} {
	root * ${root}
	php_fastcgi unix//tmp/php-fpm.sock
	file_server {
		hide .env* .git .hg .svn .htaccess .htpasswd .slipway .slipway-deps
	}
}
`;
}

async function hasPublicIndex(dir: string): Promise<boolean> {
  return (await isFolder(path.join(dir, "public"))) && (await hasProjectFile(path.join(dir, "public"), "index.php").catch(() => false));
}

/** A folder of the project itself (not a link out of it). */
async function isFolder(dir: string): Promise<boolean> {
  return (await fs.lstat(dir).catch(() => null))?.isDirectory() ?? false;
}

function findPhpFpm(): string {
  const names = (() => {
    try {
      return readdirSync("/usr/sbin");
    } catch {
      return [];
    }
  })();
  const versions = names.filter((n) => /^php-fpm\d+\.\d+$/.test(n)).sort((a, b) => b.localeCompare(a, undefined, { numeric: true }));
  return `/usr/sbin/${versions[0] ?? "php-fpm"}`;
}

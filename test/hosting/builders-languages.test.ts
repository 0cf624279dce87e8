// The go, ruby and php builders' detection and plans, checked as data (test/hosting/languages.test.ts deploys them
// for real): which package is built, what runs, with what env, what is reused, and what a user is told when the
// project cannot be built.
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BuildError, builders, detectBuild } from "../../server/hosting/builders/index.ts";
import { DEPS_MARKER } from "../../server/hosting/builders/dependency-reuse.ts";
import { lockHasGem } from "../../server/hosting/builders/ruby.ts";
import { PHP_FPM } from "../../server/hosting/builders/php.ts";
import type { ResolvedPlan } from "../../server/hosting/builders/types.ts";

let base: string;
beforeEach(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), "slipway-languages-"));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(base, { recursive: true, force: true });
});

/** A release directory holding these files (folders made as needed). */
async function release(name: string, files: Record<string, string>): Promise<string> {
  const dir = path.join(base, name);
  await fs.mkdir(dir);
  for (const [file, contents] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.writeFile(path.join(dir, file), contents);
  }
  return dir;
}

const CACHE = "/cache";

async function detect(dir: string, previousDir?: string): Promise<{ plan: ResolvedPlan; log: string }> {
  const log: string[] = [];
  const plan = await detectBuild({ dir, previousDir, cachePath: CACHE, runtime: "local", log: (line) => log.push(line) });
  return { plan, log: log.join("\n") };
}

async function detectError(dir: string): Promise<string> {
  const error = await detectBuild({ dir, cachePath: CACHE, runtime: "local", log: () => {} }).then(
    () => expect.fail("expected a BuildError"),
    (e: Error) => e,
  );
  expect(error).toBeInstanceOf(BuildError);
  return error.message;
}

const exists = (file: string) => fs.lstat(file).then(() => true, () => false);
const installedGo = async () => (await fs.readFile(path.join(path.dirname(path.dirname(await fs.realpath("/usr/bin/go"))), "VERSION"), "utf8")).match(/^go([\d.]+)/)![1];
const installedRuby = async () => (await fs.realpath("/usr/bin/ruby")).match(/ruby(\d+\.\d+)$/)![1];

describe("detection order", () => {
  it("tries go, ruby and php right after python, before a Procfile alone and index.html", () => {
    const names = builders.map((b) => b.name);
    expect(names.slice(names.indexOf("python"), names.indexOf("static") + 1)).toEqual(["python", "go", "ruby", "php", "procfile", "static"]);
  });

  it("lets a Procfile's web: line replace each language's default, and keeps the builder's env on it", async () => {
    const go = await detect(await release("go", { "go.mod": "module x\n", "main.go": "package main\n", Procfile: "web: ./.slipway/bin/app -port $PORT\n" }));
    expect(go.plan.builder).toBe("go");
    expect(go.plan.web).toEqual({ kind: "process", argv: ["/bin/sh", "-c", "./.slipway/bin/app -port $PORT"] });
    const ruby = await detect(await release("ruby", { Gemfile: "", "Gemfile.lock": "", Procfile: "web: bundle exec ruby app.rb\n" }));
    expect(ruby.plan.web).toMatchObject({ argv: ["/bin/sh", "-c", "bundle exec ruby app.rb"], env: { BUNDLE_GEMFILE: "/app/Gemfile" } });
  });
});

describe("go builder", () => {
  const GO_MOD = "module example.com/shop\n\ngo 1.19\n";

  it("builds the top's main package into .slipway/bin/app with the caches in the app's build cache", async () => {
    const { plan } = await detect(await release("top", { "go.mod": GO_MOD, "main.go": "// Server.\npackage main\n", "main_test.go": "package main_test\n" }));
    expect(plan).toEqual({
      builder: "go",
      steps: [
        {
          label: expect.stringMatching(/^go build \. \(Go [\d.]+\)$/),
          argv: ["/usr/bin/go", "build", "-ldflags=-s -w", "-o", ".slipway/bin/app", "."],
          env: { GOCACHE: "/cache/go-build", GOMODCACHE: "/cache/go-mod", GOPATH: "/cache/go-path", GOTOOLCHAIN: "local" },
        },
      ],
      web: { kind: "process", argv: ["./.slipway/bin/app"] },
    });
  });

  it("builds cmd/<name> when cmd/ holds one folder, or the one named like the module (a /vN suffix aside); honours vendor/", async () => {
    const one = await detect(await release("one", { "go.mod": GO_MOD, "cmd/server/main.go": "package main\n", "lib.go": "package shop\n" }));
    expect(one.plan.steps[0].argv.slice(-1)).toEqual(["./cmd/server"]);
    const files = { "go.mod": "module example.com/shop/v2\n", "cmd/shop/main.go": "package main\n", "cmd/migrate/main.go": "package main\n" };
    expect((await detect(await release("named", files))).plan.steps[0].argv.slice(-1)).toEqual(["./cmd/shop"]);
    const vendored = await detect(await release("vendored", { "go.mod": GO_MOD, "main.go": "package main\n", "vendor/modules.txt": "# none\n" }));
    expect(vendored.plan.steps[0].argv.slice(1)).toEqual(["build", "-mod=vendor", "-ldflags=-s -w", "-o", ".slipway/bin/app", "."]);
    expect(vendored.log).toMatch(/vendor\/modules\.txt found: building from vendor\/ \(-mod=vendor\)/);
  });

  it("fails a project with no main package, or several commands and none named like the module, saying what to do", async () => {
    expect(await detectError(await release("lib", { "go.mod": GO_MOD, "shop.go": "package shop\n" }))).toMatch(
      /^No main package to build: the \.go files at the top of the project are not `package main`, and there is no cmd\/<name> folder/,
    );
    const several = await release("several", { "go.mod": GO_MOD, "cmd/api/main.go": "package main\n", "cmd/worker/main.go": "package main\n" });
    expect(await detectError(several)).toMatch(/^cmd\/ holds api, worker: Slipway builds cmd\/<name> when cmd\/ holds one folder, .* \(cmd\/shop\)\./);
  });

  it("fails a go line newer than the installed Go, naming the installed version; accepts an older one", async () => {
    const version = await installedGo();
    const message = await detectError(await release("newer", { "go.mod": "module x\n\ngo 1.99\n", "main.go": "package main\n" }));
    expect(message).toBe(
      `go.mod's go line asks for Go 1.99, newer than any Go this server has (installed: ${version}). ` +
        "Lower the go line to an installed version if your code allows, or ask the operator to install a newer Go.",
    );
    expect(await detectError(await release("junk", { "go.mod": "module x\n\ngo latest\n", "main.go": "package main\n" }))).toMatch(/go line asks for "latest", which is not a Go version/);
    expect((await detect(await release("older", { "go.mod": "module x\n\ngo 1.13\n", "main.go": "package main\n" }))).plan.builder).toBe("go");
  });

  it("never puts a folder name into the build's argv unless it is a plain name, and never reads a .go file through a link", async () => {
    const pwned = path.join(base, "pwned");
    const evil = await release("evil", { "go.mod": GO_MOD, [`cmd/$(touch ${pwned.replaceAll("/", "_")})/main.go`]: "package main\n" });
    expect(await detectError(evil)).toMatch(/^No main package/);
    const secret = await release("secret", { "main.go.real": "package main\n" });
    const linked = await release("linked", { "go.mod": GO_MOD });
    await fs.symlink(path.join(secret, "main.go.real"), path.join(linked, "main.go"));
    expect(await detectError(linked)).toMatch(/^No main package/);
    expect(await exists(pwned)).toBe(false);
  });
});

describe("ruby builder", () => {
  const LOCK = "GEM\n  remote: https://rubygems.org/\n  specs:\n    nio4r (2.5.8)\n    puma (5.6.5)\n      nio4r (~> 2.0)\n    rack (2.2.22)\n\nDEPENDENCIES\n  puma\n  rack\n";
  const RACK = { Gemfile: 'source "https://rubygems.org"\ngem "rack"\ngem "puma"\n', "Gemfile.lock": LOCK, "config.ru": "run ->(e) { [200, {}, ['hi']] }\n" };
  const BUNDLE_ENV = { BUNDLE_DEPLOYMENT: "true", BUNDLE_WITHOUT: "development:test" };

  it("bundle install in deployment mode into vendor/bundle; puma serves config.ru; every process gets BUNDLE_*", async () => {
    const ruby = await fs.realpath("/usr/bin/ruby");
    const { plan, log } = await detect(await release("rack", RACK));
    const runtimeEnv = { ...BUNDLE_ENV, BUNDLE_GEMFILE: "/app/Gemfile", BUNDLE_PATH: "/app/vendor/bundle" };
    expect(plan).toEqual({
      builder: "ruby",
      steps: [
        {
          label: `bundle install (Gemfile.lock, Ruby ${await installedRuby()})`,
          argv: [ruby, "/usr/bin/bundle", "install"],
          env: { ...BUNDLE_ENV, BUNDLE_PATH: "vendor/bundle", BUNDLE_USER_HOME: "/cache/bundler" },
        },
      ],
      web: {
        kind: "process",
        argv: ["/bin/sh", "-c", 'exec "$0" /usr/bin/bundle exec puma -b "tcp://0.0.0.0:$PORT"', ruby],
        env: runtimeEnv,
        // What the build log shows instead of the wrapper script.
        shown: 'bundle exec puma -b "tcp://0.0.0.0:$PORT"',
      },
    });
    expect(log).toMatch(/config\.ru found: web defaults to puma/);
  });

  it("serves config.ru with rackup without puma, and needs a Procfile web: line without config.ru", async () => {
    const lock = LOCK.replace(/    puma.*\n.*\n/, "");
    expect(lockHasGem(lock, "puma")).toBe(false);
    expect(lockHasGem(LOCK, "nio4r")).toBe(true);
    const { plan } = await detect(await release("rackup", { ...RACK, "Gemfile.lock": lock }));
    expect(plan.web).toMatchObject({ argv: ["/bin/sh", "-c", 'exec "$0" /usr/bin/bundle exec rackup -p "$PORT" -o 0.0.0.0', await fs.realpath("/usr/bin/ruby")] });
    expect(await detectError(await release("noweb", { Gemfile: RACK.Gemfile, "Gemfile.lock": LOCK }))).toMatch(/without a config\.ru needs a Procfile with a web: line/);
  });

  it("fails a Gemfile without Gemfile.lock, and a .ruby-version that is not installed, naming the installed one", async () => {
    expect(await detectError(await release("nolock", { Gemfile: RACK.Gemfile }))).toMatch(/^Gemfile has no Gemfile\.lock beside it: run `bundle lock`/);
    const version = await installedRuby();
    expect(await detectError(await release("pinned", { ...RACK, ".ruby-version": "2.7.8\n" }))).toBe(
      `.ruby-version asks for Ruby 2.7.8, which this server does not have (installed: ${version}). Ask for one of those, or remove .ruby-version.`,
    );
    const { log } = await detect(await release("ok", { ...RACK, ".ruby-version": `ruby-${version}.0\n` }));
    expect(log).toMatch(new RegExp(`\\.ruby-version asks for Ruby ${version}\\.0: using /usr/bin/ruby${version}`));
  });

  it("reuses vendor/bundle when the Gemfile, Gemfile.lock and Ruby are unchanged; installs again when the lockfile changed", async () => {
    const previous = await release("previous", RACK);
    await detect(previous);
    await fs.mkdir(path.join(previous, "vendor/bundle/ruby"), { recursive: true });
    await fs.writeFile(path.join(previous, "vendor/bundle/ruby/gem.rb"), "# installed\n");
    const next = await release("next", RACK);
    const { plan, log } = await detect(next, previous);
    expect(plan.steps).toEqual([]);
    expect(log).toMatch(/Gemfile and Gemfile\.lock is unchanged: reusing vendor\/bundle from the previous release \(1 file\), skipping bundle install/);
    expect(await fs.readFile(path.join(next, "vendor/bundle/ruby/gem.rb"), "utf8")).toBe("# installed\n");
    expect(await fs.readFile(path.join(next, DEPS_MARKER), "utf8")).toBe(await fs.readFile(path.join(previous, DEPS_MARKER), "utf8"));

    const changed = await detect(await release("changed", { ...RACK, "Gemfile.lock": LOCK.replace("2.2.22", "2.2.23") }), previous);
    expect(changed.plan.steps.map((s) => s.argv.at(-1))).toEqual(["install"]);
    expect(changed.log).toMatch(/Gemfile and Gemfile\.lock changed since the previous release: installing dependencies/);
  });

  it("never copies the previous gems through a vendor link, in the new release or the previous one", async () => {
    const previous = await release("previous", RACK);
    await detect(previous);
    await fs.mkdir(path.join(previous, "vendor/bundle"), { recursive: true });
    await fs.writeFile(path.join(previous, "vendor/bundle/gem.rb"), "");
    const outside = path.join(base, "outside");
    await fs.mkdir(outside);
    const linked = await release("linked", RACK);
    await fs.symlink(outside, path.join(linked, "vendor"));
    const { plan, log } = await detect(linked, previous);
    expect(plan.steps.map((s) => s.argv.at(-1))).toEqual(["install"]);
    expect(log).toMatch(/vendor is not a folder in this project/);
    expect(await fs.readdir(outside)).toEqual([]);

    await fs.rename(path.join(previous, "vendor"), path.join(base, "elsewhere"));
    await fs.symlink(path.join(base, "elsewhere"), path.join(previous, "vendor"));
    const next = await release("next", RACK);
    expect((await detect(next, previous)).plan.steps.map((s) => s.argv.at(-1))).toEqual(["install"]);
    expect(await exists(path.join(next, "vendor/bundle"))).toBe(false);
  });
});

describe("php builder", () => {
  const ini = (dir: string) => path.join(dir, ".slipway");
  const SERVE = ["/bin/sh", "-c", expect.stringMatching(/^"\$0" --nodaemonize --force-stderr --fpm-config \/app\/\.slipway\/php-fpm\.conf .* & .*exec \/usr\/bin\/caddy run --config \/app\/\.slipway\/Caddyfile --adapter caddyfile$/), PHP_FPM];

  it("serves public/ with php-fpm behind Caddy when it exists, writing their configuration into .slipway/", async () => {
    const dir = await release("public", { "public/index.php": "<?php echo 1;" });
    const { plan, log } = await detect(dir);
    expect(plan).toMatchObject({ builder: "php", steps: [], web: { kind: "process", argv: SERVE, env: { PATH: "/app/.slipway/bin:/usr/bin:/bin" } } });
    expect(log).toMatch(/Serving public\/ with php-fpm [\d.]+ behind Caddy/);
    const caddyfile = await fs.readFile(path.join(ini(dir), "Caddyfile"), "utf8");
    expect(caddyfile).toMatch(/admin off\n\tauto_https off/);
    expect(caddyfile).toMatch(/:\{\$PORT\} \{\n\troot \* \/app\/public\n\tphp_fastcgi unix\/\/tmp\/php-fpm\.sock\n\tfile_server/);
    const fpm = await fs.readFile(path.join(ini(dir), "php-fpm.conf"), "utf8");
    expect(fpm).toMatch(/listen = \/tmp\/php-fpm\.sock/);
    expect(fpm).toMatch(/pm = ondemand/);
    expect(fpm).toMatch(/clear_env = no/);
    expect(fpm).not.toMatch(/^user\s*=/m);
    expect(await fs.readlink(path.join(ini(dir), "bin/php"))).toMatch(/^\/usr\/bin\/php[\d.]+$/);
  });

  it("serves the top when there is no public/; copies the host's php.ini and its extensions for the sandbox, which has no /etc/php", async () => {
    const dir = await release("top", { "index.php": "<?php echo 1;" });
    const { plan } = await detect(dir);
    expect(await fs.readFile(path.join(ini(dir), "Caddyfile"), "utf8")).toMatch(/root \* \/app\n/);
    const version = /php-fpm([\d.]+)$/.exec(PHP_FPM)![1];
    if (await exists(`/etc/php/${version}/fpm/php.ini`)) {
      expect(await fs.readFile(path.join(ini(dir), "php-fpm.ini"), "utf8")).toContain(`; /etc/php/${version}/fpm/php.ini\n`);
      expect(plan.web).toMatchObject({ env: { PHPRC: "/app/.slipway/php-cli.ini", PHP_INI_SCAN_DIR: "" } });
    }
  });

  it("runs composer install with a composer.json, reusing vendor/ when composer.lock is unchanged (the autoloader dumped again)", async () => {
    const files = { "composer.json": '{"require": {}}', "composer.lock": '{"packages": []}', "index.php": "" };
    const previous = await release("previous", files);
    const first = await detect(previous);
    expect(first.plan.steps).toEqual([
      {
        label: "composer install (composer.lock found)",
        argv: [expect.stringMatching(/^\/usr\/bin\/php/), "/usr/bin/composer", "install", "--no-dev", "--optimize-autoloader", "--no-interaction", "--no-progress"],
        env: expect.objectContaining({ COMPOSER_HOME: "/cache/composer", COMPOSER_CACHE_DIR: "/cache/composer/cache", PATH: "/app/.slipway/bin:/usr/bin:/bin" }),
      },
    ]);
    await fs.mkdir(path.join(previous, "vendor"));
    await fs.writeFile(path.join(previous, "vendor/autoload.php"), "<?php\n");
    const next = await release("next", files);
    const { plan, log } = await detect(next, previous);
    expect(plan.steps.map((s) => s.argv.slice(2))).toEqual([["dump-autoload", "--optimize", "--no-dev", "--no-interaction"]]);
    expect(log).toMatch(/composer\.lock is unchanged: reusing vendor from the previous release \(1 file\), skipping composer install/);
    const unlocked = await detect(await release("unlocked", { "composer.json": "{}" }));
    expect(unlocked.plan.steps.map((s) => s.label)).toEqual(["composer install"]);
    expect(unlocked.log).toMatch(/No composer\.lock: composer resolves versions afresh/);
  });

  it("fails a composer.json on a server without composer, naming the package to install", async () => {
    const access = fs.access;
    vi.spyOn(fs, "access").mockImplementation((file, mode) => (file === "/usr/bin/composer" ? Promise.reject(new Error("ENOENT")) : access(file, mode)));
    expect(await detectError(await release("nocomposer", { "composer.json": "{}" }))).toBe(
      "The php builder needs /usr/bin/composer, which this Slipway server does not have: its operator can add it with `apt-get install composer`.",
    );
  });

  it("replaces a .slipway the project holds (a link, say) instead of writing through it", async () => {
    const outside = path.join(base, "outside");
    await fs.mkdir(outside);
    const dir = await release("linked", { "index.php": "" });
    await fs.symlink(outside, path.join(dir, ".slipway"));
    await detect(dir);
    expect(await fs.readdir(outside)).toEqual([]);
    expect((await fs.lstat(path.join(dir, ".slipway"))).isDirectory()).toBe(true);
  });
});

// Go, Ruby and PHP apps deployed for real through the API, built in the app's sandbox with the host's Debian
// toolchains and reached through the router: the build, the redeploy that reuses what it can, a Go compile error
// that leaves the live release serving, and the sandbox probed from inside a Go app.
//
// What was tested with real gems, and what was not: the Rack app installs rack 2.2.22, puma 5.6.5 and nio4r 2.5.8
// with a real `bundle install` in deployment mode, offline. No RubyGems index is reachable here, so the test repacks
// the gems Debian installed (ruby-rack, puma, ruby-nio4r: their files and compiled extensions, found through
// rubygems-integration) as .gem files into a folder, and hands it to every build as the operator of an offline
// server would: BUILD_ENV {"BUNDLE_CACHE_PATH": folder} and BUILD_READONLY_PATHS=folder (Bundler installs what the
// lockfile pins from that cache without asking an index). Not tested: a download from rubygems.org or a mirror
// (BUNDLE_MIRROR__…), gems whose C extensions compile during the install (ruby-dev is not installed), Rails.
// PHP: composer with no dependencies only (no Packagist here); Go: the standard library only (no module proxy).
//
// A missing toolchain fails these tests (CI installs them): apt-get install golang-go ruby ruby-bundler ruby-rack
// puma php-cli php-fpm composer caddy.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builders } from "../../server/hosting/builders/index.ts";
import { missingToolchains } from "../../server/hosting/builders/toolchains.ts";
import { hostingPaths } from "../../server/hosting/paths.ts";
import { Client } from "../helpers/client.ts";
import { deploy, requestApp, zipFolder } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const isRoot = process.getuid?.() === 0;
let server: TestServer;
let owner: Client;
let gems: string;
let counter = 0;

const GO_APP = {
  "go.mod": "module example.com/hello\n\ngo 1.19\n",
  "main.go": `package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
)

func attempt(err error, ok string) string {
	if err != nil {
		return err.Error()
	}
	return ok
}

func main() {
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s from go", os.Getenv("GREETING"))
	})
	http.HandleFunc("/probe", func(w http.ResponseWriter, r *http.Request) {
		_, shadowErr := os.ReadFile("/etc/shadow")
		usrErr := os.WriteFile("/usr/slipway-probe", []byte("x"), 0o644)
		json.NewEncoder(w).Encode(map[string]any{
			"uid":    os.Getuid(),
			"shadow": attempt(shadowErr, "READ"),
			"usr":    attempt(usrErr, "WROTE"),
		})
	})
	http.ListenAndServe(":"+os.Getenv("PORT"), nil)
}
`,
};

const RACK_APP = {
  Gemfile: 'source "https://rubygems.org"\n\ngem "rack"\ngem "puma"\n',
  // No BUNDLED WITH: Bundler would otherwise fetch the bundler version that wrote the lockfile when it differs.
  "Gemfile.lock": `GEM
  remote: https://rubygems.org/
  specs:
    nio4r (2.5.8)
    puma (5.6.5)
      nio4r (~> 2.0)
    rack (2.2.22)

PLATFORMS
  x86_64-linux

DEPENDENCIES
  puma
  rack
`,
  "config.ru": 'run ->(env) { [200, { "content-type" => "text/plain" }, ["rack #{Rack.release} on #{RUBY_VERSION}, #{ENV["GREETING"]}"]] }\n',
};

const PHP_APP = {
  "README.md": "# hello\n", // a zip holding only public/ would be unwrapped from it
  "public/index.php": '<?php\necho "php ", PHP_MAJOR_VERSION, " says ", getenv("GREETING"), " from ", $_SERVER["SCRIPT_FILENAME"], "\\n";\n',
  "public/style.css": "body { color: red }\n",
  "public/.env": "SECRET=1\n",
};

const COMPOSER_APP = {
  "composer.json": JSON.stringify({ name: "slipway/hello", autoload: { "psr-4": { "App\\": "src/" } } }),
  "src/Greeting.php": '<?php\nnamespace App;\n\nclass Greeting\n{\n    public static function text(): string { return "autoloaded"; }\n}\n',
  "index.php": '<?php\nrequire __DIR__ . "/vendor/autoload.php";\necho App\\Greeting::text(), "\\n";\n',
};

/** The gems Debian installed, repacked as .gem files (their compiled extensions moved into lib/), for Bundler's cache. */
const REPACK = `
require "rubygems/package"
require "fileutils"
require "tmpdir"
out = ARGV.shift
ARGV.each do |name|
  spec = Gem::Specification.find_by_name(name)
  work = Dir.mktmpdir
  files = Dir.chdir(spec.full_gem_path) { Dir.glob("**/*", File::FNM_DOTMATCH).reject { |f| File.directory?(f) } }
  files.each { |f| FileUtils.mkdir_p(File.join(work, File.dirname(f))); FileUtils.cp(File.join(spec.full_gem_path, f), File.join(work, f)) }
  unless spec.extensions.empty?
    Dir.chdir(spec.extension_dir) { Dir.glob("**/*.so") }.each do |f|
      FileUtils.mkdir_p(File.join(work, "lib", File.dirname(f)))
      FileUtils.cp(File.join(spec.extension_dir, f), File.join(work, "lib", f))
    end
  end
  copy = spec.dup
  copy.extensions = []
  copy.require_paths = ["lib"]
  copy.files = Dir.chdir(work) { Dir.glob("**/*", File::FNM_DOTMATCH).reject { |f| File.directory?(f) } }
  Dir.chdir(work) { FileUtils.mv(Gem::Package.build(copy), out) }
  FileUtils.rm_rf(work)
end
`;

function repackDebianGems(): string {
  // Not under /tmp: the sandbox has its own /tmp, and BUILD_READONLY_PATHS refuses the sandbox's paths.
  const dir = fs.mkdtempSync("/var/tmp/slipway-gems-");
  execFileSync("/usr/bin/ruby", ["-e", REPACK, dir, "rack", "puma", "nio4r"], { stdio: "pipe" });
  fs.chmodSync(dir, 0o755); // bound read-only into builds that run as the app's uid
  return dir;
}

/** The lockfile composer writes for COMPOSER_APP (no dependencies, so no Packagist), made once on the host. */
function composerLock(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-composer-"));
  try {
    fs.writeFileSync(path.join(dir, "composer.json"), COMPOSER_APP["composer.json"]);
    const env = { PATH: "/usr/bin:/bin", HOME: dir, COMPOSER_ALLOW_SUPERUSER: "1", COMPOSER_HOME: path.join(dir, ".composer") };
    execFileSync("/usr/bin/composer", ["update", "--no-install", "--no-interaction", "--quiet"], { cwd: dir, env, stdio: "pipe" });
    return fs.readFileSync(path.join(dir, "composer.lock"), "utf8");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function newApp(env: Record<string, string> = {}): Promise<string> {
  const slug = `lang-${process.pid}-${++counter}`;
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  if (Object.keys(env).length) expect((await owner.post(`/api/apps/${slug}/env`, env)).status).toBe(200);
  return slug;
}

async function buildLog(slug: string, deployment: string): Promise<string> {
  const res = await owner.get(`/api/apps/${slug}/logs?kind=build&deployment=${deployment}&limit=1000`);
  return res.body.map((l: { line: string }) => l.line).join("\n");
}

async function deployFiles(slug: string, files: Record<string, string>) {
  const done = await deploy(owner, slug, await zipFolder(null, files));
  return { ...done, log: await buildLog(slug, done.id) };
}

async function answer(slug: string, pathname = "/") {
  return requestApp(server.url, `${slug}.localhost`, pathname);
}

async function builderOf(slug: string): Promise<string> {
  return (await owner.get(`/api/apps/${slug}`)).body.deployments[0].builder;
}

describe.runIf(isRoot)("Go, Ruby and PHP apps, deployed", () => {
  beforeAll(async () => {
    const missing = [];
    for (const name of ["go", "ruby", "php"]) missing.push(...(await missingToolchains(builders.find((b) => b.name === name)!)));
    for (const program of ["/usr/bin/composer", "/usr/share/rubygems-integration/all/specifications/rack-2.2.22.gemspec"]) {
      if (!fs.existsSync(program)) missing.push({ command: program, debianPackage: "composer ruby-rack puma" });
    }
    if (missing.length) {
      throw new Error(`missing toolchains: ${missing.map((t) => t.command).join(", ")}; apt-get install golang-go ruby ruby-bundler ruby-rack puma php-cli php-fpm composer caddy`);
    }
    gems = repackDebianGems();
    server = await startServer({
      BUILD_ENV: JSON.stringify({ BUNDLE_CACHE_PATH: gems }),
      BUILD_READONLY_PATHS: gems,
      DEFAULT_MAX_APPS: "50",
      DEFAULT_REQUESTS_PER_MINUTE: "100000",
    });
    owner = new Client(server.url);
    await owner.signup();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    if (gems) fs.rmSync(gems, { recursive: true, force: true });
  });

  it("Go: go build of a stdlib server without a Procfile; a redeploy compiles from the warm cache; a compile error keeps the live release", async () => {
    const slug = await newApp({ GREETING: "hello" });
    const first = await deployFiles(slug, GO_APP);
    expect(first.status, first.log).toBe("LIVE");
    expect(await builderOf(slug)).toBe("go");
    expect(first.log).toMatch(/Found go\.mod: building with the go builder/);
    expect(first.log).toMatch(/\/usr\/bin\/go build '-ldflags=-s -w' -o \.slipway\/bin\/app \./);
    expect(first.log).toMatch(/\$ \.\/\.slipway\/bin\/app/);
    expect((await answer(slug)).body).toBe("hello from go");

    // The build cache is the app's: the standard library compiled by the first build is reused by the next, which
    // adds only what changed (the main package, linked again) to it.
    const { id } = await server.slipway.platform.db.app.findUniqueOrThrow({ where: { slug } });
    const goCache = path.join(hostingPaths(server.config.dataDir).cache(id), "go-build");
    const cached = () =>
      new Map((fs.readdirSync(goCache, { recursive: true }) as string[]).map((name) => [name, fs.statSync(path.join(goCache, name)).mtimeMs]));
    const afterFirst = cached();
    const second = await deployFiles(slug, { ...GO_APP, "main.go": GO_APP["main.go"].replace('"%s from go"', '"%s again from go"') });
    expect(second.status, second.log).toBe("LIVE");
    const afterSecond = cached();
    const kept = [...afterFirst].filter(([name, mtime]) => afterSecond.get(name) === mtime).length;
    expect(kept).toBeGreaterThan(afterFirst.size * 0.9);
    expect(afterSecond.size - afterFirst.size).toBeLessThan(afterFirst.size / 4);
    expect((await answer(slug)).body).toBe("hello again from go");

    const broken = await deployFiles(slug, { ...GO_APP, "main.go": GO_APP["main.go"].replace("func main() {", "func main() {\n\tundefinedThing()") });
    expect(broken.status).toBe("FAILED");
    expect(broken.error).toMatch(/go build \. \(Go [\d.]+\) failed \(exit code 2\)/);
    expect(broken.log).toMatch(/main\.go:\d+:\d+: undefined: undefinedThing/);
    expect((await answer(slug)).body).toBe("hello again from go");
  }, 180_000);

  it("Go: cmd/<name> is the main package; the app runs as its own uid and can neither read /etc/shadow nor write /usr", async () => {
    const slug = await newApp();
    const files = { "go.mod": "module example.com/prober\n\ngo 1.19\n", "cmd/prober/main.go": GO_APP["main.go"], "README.md": "# prober\n" };
    const done = await deployFiles(slug, files);
    expect(done.status, done.log).toBe("LIVE");
    expect(done.log).toMatch(/go build '-ldflags=-s -w' -o \.slipway\/bin\/app \.\/cmd\/prober/);
    const probe = JSON.parse((await answer(slug, "/probe")).body);
    expect(probe.uid).not.toBe(0);
    expect(probe.shadow).toMatch(/no such file or directory|permission denied/);
    expect(probe.usr).toMatch(/read-only file system|permission denied/);
    expect(fs.existsSync("/usr/slipway-probe")).toBe(false);
  }, 180_000);

  it("Ruby: a Rack app installed by bundle install in deployment mode, served by puma; a redeploy with the same lockfile skips the install", async () => {
    const slug = await newApp({ GREETING: "howdy" });
    const first = await deployFiles(slug, RACK_APP);
    expect(first.status, first.log).toBe("LIVE");
    expect(await builderOf(slug)).toBe("ruby");
    expect(first.log).toMatch(/\/usr\/bin\/bundle install/);
    expect(first.log).toMatch(/Installing puma 5\.6\.5/);
    expect(first.log).toMatch(/config\.ru found: web defaults to puma/);
    expect(first.log).toContain('$ bundle exec puma -b "tcp://0.0.0.0:$PORT"');
    expect((await answer(slug)).body).toMatch(/^rack 2\.2\.22 on 3\.\d+\.\d+, howdy$/);

    const second = await deployFiles(slug, { ...RACK_APP, "config.ru": RACK_APP["config.ru"].replace("rack #{", "rack again #{") });
    expect(second.status, second.log).toBe("LIVE");
    expect(second.log).toMatch(/Gemfile and Gemfile\.lock is unchanged: reusing vendor\/bundle from the previous release \(\d+ files\), skipping bundle install/);
    expect(second.log).not.toMatch(/\/usr\/bin\/bundle install/);
    expect((await answer(slug)).body).toMatch(/^rack again 2\.2\.22/);
  }, 180_000);

  it("PHP: public/index.php served by php-fpm behind Caddy, with the app's env vars; files as they are, .env hidden", async () => {
    const slug = await newApp({ GREETING: "bonjour" });
    const done = await deployFiles(slug, PHP_APP);
    expect(done.status, done.log).toBe("LIVE");
    expect(await builderOf(slug)).toBe("php");
    expect(done.log).toMatch(/Serving public\/ with php-fpm [\d.]+ behind Caddy/);
    expect(done.log).toContain("$ php-fpm behind caddy, serving /app/public on $PORT");
    const page = await answer(slug);
    expect(page.status, page.body).toBe(200);
    expect(page.body).toBe("php 8 says bonjour from /app/public/index.php\n");
    expect((await answer(slug, "/style.css")).body).toBe("body { color: red }\n");
    expect((await answer(slug, "/.env")).status).toBe(404);
  }, 120_000);

  it("PHP: composer install of a composer.json with an autoloaded class; a redeploy with the same composer.lock skips the install", async () => {
    const slug = await newApp();
    const files = { ...COMPOSER_APP, "composer.lock": composerLock() };
    const first = await deployFiles(slug, files);
    expect(first.status, first.log).toBe("LIVE");
    expect(await builderOf(slug)).toBe("php");
    expect(first.log).toMatch(/\$ \/usr\/bin\/php[\d.]* \/usr\/bin\/composer install --no-dev --optimize-autoloader --no-interaction/);
    expect(first.log).toMatch(/Serving the top of the project/);
    expect((await answer(slug)).body).toBe("autoloaded\n");
    expect((await answer(slug, "/composer.json")).status).toBe(200); // the top is served as the user asked: public/ is the way to hide it

    const second = await deployFiles(slug, files);
    expect(second.status, second.log).toBe("LIVE");
    expect(second.log).toMatch(/composer\.lock is unchanged: reusing vendor from the previous release \(\d+ files\), skipping composer install/);
    expect(second.log).toMatch(/\/usr\/bin\/composer dump-autoload/);
    expect((await answer(slug)).body).toBe("autoloaded\n");
  }, 120_000);
});

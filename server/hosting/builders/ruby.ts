// Ruby projects (a Gemfile and its Gemfile.lock at the top):
// - the Ruby: what .ruby-version asks for (its major.minor) among the host's /usr/bin/rubyX.Y, Debian's ruby by
//   default; a version that is not installed fails the build naming those that are. (A Gemfile's own `ruby "…"` line
//   is checked by Bundler itself.)
// - `bundle install` in deployment mode (exactly what Gemfile.lock pins, without the development and test groups)
//   into the release's vendor/bundle, with Bundler's download cache in the app's build cache; vendor/bundle is copied
//   from the previous release instead when the Gemfile, Gemfile.lock and the Ruby are unchanged (dependency-reuse.ts).
//   Gems come from the Gemfile's source (rubygems.org); the operator's BUILD_ENV may point Bundler at a mirror
//   (BUNDLE_MIRROR__…) or at a folder of .gem files (BUNDLE_CACHE_PATH, with BUILD_READONLY_PATHS), for servers
//   without access to rubygems.org. Gems with C extensions also need ruby-dev and a compiler on the host.
// - web, when there is a config.ru: puma when Gemfile.lock has it, else rackup; anything else needs a Procfile web:
//   line. Every process gets BUNDLE_* so `bundle exec` finds vendor/bundle.
import { BuildError } from "./errors.ts";
import { depsHash, reuseDependencies } from "./dependency-reuse.ts";
import { hasProjectFile, readProjectFile, readText } from "./files.ts";
import { chooseInterpreter, readPinned, type Interpreter, type Language } from "./interpreters.ts";
import type { BuildContext, BuildPlan, Builder, WebProcess } from "./types.ts";

const HOST_RUBY = "/usr/bin/ruby";
const BUNDLE = "/usr/bin/bundle";
const GEMS = "vendor/bundle";
const MAX_GEMFILE = 16 * 1024 ** 2;
/** What every `bundle` of the build and of the release sees: deployment mode, gems in the release, no dev/test gems. */
const BUNDLE_SETTINGS = { BUNDLE_DEPLOYMENT: "true", BUNDLE_WITHOUT: "development:test" };
/** The web servers, through the chosen Ruby ("$0", never part of this text); the shell only expands $PORT. */
const PUMA = 'exec "$0" /usr/bin/bundle exec puma -b "tcp://0.0.0.0:$PORT"';
const RACKUP = 'exec "$0" /usr/bin/bundle exec rackup -p "$PORT" -o 0.0.0.0';

export const rubyBuilder: Builder = {
  name: "ruby",
  looksFor: "Gemfile",
  missingWeb:
    'A Ruby project without a config.ru needs a Procfile with a web: line naming the command that serves it on $PORT, for example "web: bundle exec ruby app.rb -p $PORT".',
  toolchains: [
    // The host's gems (Debian names most ruby-*; a few, like puma and rake, keep their own name): `bundle install --local`.
    { command: HOST_RUBY, debianPackage: "ruby", addOns: /^(ruby-.+|puma|rake)$/ },
    { command: BUNDLE, debianPackage: "ruby-bundler" },
  ],
  async detect(ctx) {
    const gemfile = await readProjectFile(ctx.dir, "Gemfile", MAX_GEMFILE);
    if (!gemfile) return null;
    const lock = await readProjectFile(ctx.dir, "Gemfile.lock", MAX_GEMFILE);
    if (!lock) {
      throw new BuildError("Gemfile has no Gemfile.lock beside it: run `bundle lock` (or `bundle install`) and commit Gemfile.lock; Slipway installs exactly what it pins.");
    }
    const ruby = await chooseInterpreter(RUBY, await readPinned(ctx.dir, ".ruby-version"), ctx.log);
    const stepEnv = { ...BUNDLE_SETTINGS, BUNDLE_PATH: GEMS, BUNDLE_USER_HOME: `${ctx.cachePath}/bundler` };
    const argv = [ruby.path, BUNDLE, "install"];
    const steps: BuildPlan["steps"] = [];
    const hash = depsHash([gemfile, lock], argv, [ruby.path, ruby.version, BUNDLE_SETTINGS]);
    const reused = await reuseDependencies(ctx, { folder: GEMS, hash, source: "Gemfile and Gemfile.lock", skipping: "bundle install" });
    if (!reused) steps.push({ label: `bundle install (Gemfile.lock, ${ruby.name})`, argv, env: stepEnv });
    const plan: BuildPlan = {
      builder: "ruby",
      steps,
      processEnv: { ...BUNDLE_SETTINGS, BUNDLE_GEMFILE: "/app/Gemfile", BUNDLE_PATH: `/app/${GEMS}` },
    };
    const web = await rackWeb(ctx, readText(lock), ruby);
    if (web) plan.web = web;
    return plan;
  },
};

/** config.ru served by puma when the lockfile has it, else by rackup (which picks whatever server the bundle has). */
async function rackWeb(ctx: BuildContext, lock: string, ruby: Interpreter): Promise<WebProcess | null> {
  if (!(await hasProjectFile(ctx.dir, "config.ru"))) return null;
  const puma = lockHasGem(lock, "puma");
  ctx.log(`config.ru found: web defaults to ${puma ? "puma" : "rackup"} (a Procfile web: line replaces it).`);
  const shown = puma ? 'bundle exec puma -b "tcp://0.0.0.0:$PORT"' : 'bundle exec rackup -p "$PORT" -o 0.0.0.0';
  return { kind: "process", argv: ["/bin/sh", "-c", puma ? PUMA : RACKUP, ruby.path], shown };
}

/** Whether Gemfile.lock pins this gem (a spec line of a GEM, PATH or GIT section: four spaces, name, version). */
export function lockHasGem(lock: string, name: string): boolean {
  return lock.split(/\r?\n/).some((line) => line.startsWith(`    ${name} (`));
}

const RUBY: Language = { name: "Ruby", hostDefault: HOST_RUBY, versioned: /^ruby(\d+)\.(\d+)$/, prefix: /^ruby-/ };

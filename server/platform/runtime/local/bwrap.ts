// The argv of a sandboxed process. As root: nsenter into the app's network namespace, then setpriv drops
// to the app's uid OUTSIDE bwrap (bwrap's --uid as root is no privilege drop), then bwrap, unprivileged,
// builds the sandbox in a fresh user namespace (so the command runs with no capabilities at all):
//   - read-only /usr (node, npm) with /bin, /lib… as symlinks into it, and only the /etc files programs need;
//   - the release directory read-write at /app (the working directory), a private /tmp, fresh /proc and /dev;
//   - for an app instance, the app's own data directory (its SQLite databases) read-write at /data;
//   - for a build, the app's build cache read-write at /cache, and the operator's BUILD_READONLY_PATHS read-only;
//   - own pid, ipc, uts and cgroup namespaces, a new session, killed when the platform dies (but app instances:
//     kept.ts);
//   - an environment of exactly the variables given (--clearenv).
// The environment travels on a pipe (--args) rather than the command line, which every host user can read.
import { BUILD_CACHE_PATH } from "../paths.ts";

export const BWRAP = "/usr/bin/bwrap";
export const DATA_PATH = "/data";
const NSENTER = "/usr/bin/nsenter";
const SETPRIV = "/usr/bin/setpriv";

/** The file descriptors bwrap talks to the platform on (set up by the launcher's stdio). */
export const FD = { status: 3, block: 4, args: 5 } as const;

const ETC_FILES = ["/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/localtime", "/etc/ssl", "/etc/ca-certificates"];

export interface SandboxCommand {
  workDir: string;
  /** The app's own data directory, bound read-write at DATA_PATH. */
  dataDir?: string;
  /** The app's build cache, bound read-write at BUILD_CACHE_PATH. */
  cacheDir?: string;
  /** Host directories bound read-only at their own path. */
  readOnlyPaths?: string[];
  argv: string[];
  env: Record<string, string>;
  /** Drop to this uid (and gid) before bwrap; unset when the platform does not run as root. */
  uid?: number;
  /** Enter this network namespace (a name under /run/netns) first. */
  netns?: string;
  /** Keeps running when the platform dies (an app instance the next platform adopts); else killed with it. */
  outlivesPlatform?: boolean;
}

/** The privileged steps before the sandbox: enter the app's network namespace, drop to its uid. */
export function privilegeDropArgv(cmd: Pick<SandboxCommand, "uid" | "netns">): string[] {
  const argv: string[] = [];
  if (cmd.netns) argv.push(NSENTER, `--net=/run/netns/${cmd.netns}`, "--");
  if (cmd.uid !== undefined) argv.push(SETPRIV, `--reuid=${cmd.uid}`, `--regid=${cmd.uid}`, "--clear-groups", "--no-new-privs", "--");
  return argv;
}

/** What is executed on the host: the privileged steps, then bwrap reading its options from FD.args. */
export function launcherArgv(cmd: SandboxCommand): string[] {
  return [...privilegeDropArgv(cmd), BWRAP, "--args", String(FD.args), "--", ...checkedCommand(cmd.argv)];
}

/** How bwrap reports its pid 1 and waits for the platform (to join the cgroup) before running the command. */
export const SYNC_OPTIONS = ["--json-status-fd", String(FD.status), "--block-fd", String(FD.block)];

/** bwrap's options, NUL-separated on FD.args (with SYNC_OPTIONS). */
export function bwrapOptions(cmd: SandboxCommand): string[] {
  const etc = ETC_FILES.flatMap((file) => ["--ro-bind-try", file, file]);
  return [
    // As root bwrap would create /etc 0700 and node could not read /etc/ssl/openssl.cnf.
    "--perms", "0755", "--dir", "/etc",
    "--ro-bind", "/usr", "/usr",
    ...["lib", "lib64", "bin", "sbin"].flatMap((dir) => ["--symlink", `usr/${dir}`, `/${dir}`]),
    ...etc,
    "--proc", "/proc",
    "--dev", "/dev",
    "--tmpfs", "/tmp",
    "--bind", cmd.workDir, "/app",
    ...(cmd.dataDir ? ["--bind", cmd.dataDir, DATA_PATH] : []),
    ...(cmd.cacheDir ? ["--bind", cmd.cacheDir, BUILD_CACHE_PATH] : []),
    ...(cmd.readOnlyPaths ?? []).flatMap((dir) => ["--ro-bind", dir, dir]),
    "--chdir", "/app",
    // The sandbox's own root (a tmpfs holding the mount points) read-only too: /app and /tmp stay writable.
    "--remount-ro", "/",
    "--unshare-user", "--disable-userns",
    "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
    "--hostname", "app",
    ...(cmd.outlivesPlatform ? [] : ["--die-with-parent"]),
    "--new-session",
    "--clearenv",
    ...Object.entries(checkedEnv(cmd.env)).flatMap(([name, value]) => ["--setenv", name, value]),
  ];
}

function checkedCommand(argv: string[]): string[] {
  if (argv.length === 0 || !argv[0]) throw new Error("the command to run is empty");
  if (argv.some((arg) => arg.includes("\0"))) throw new Error("a command argument contains a NUL byte");
  return argv;
}

function checkedEnv(env: Record<string, string>): Record<string, string> {
  for (const [name, value] of Object.entries(env)) {
    if (!name || name.includes("=") || name.includes("\0")) throw new Error(`invalid environment variable name ${JSON.stringify(name)}`);
    if (value.includes("\0")) throw new Error(`the value of ${name} contains a NUL byte`);
  }
  return env;
}

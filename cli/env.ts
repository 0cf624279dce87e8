// Everything the CLI reads from its environment, in one place: the variables it documents (--help, README)
// and the package's version.
import fs from "node:fs";

const value = (name: string) => (process.env[name] ? process.env[name] : undefined);

export const env = {
  /** An access token that replaces the stored login (CI). */
  token: () => value("SLIPWAY_TOKEN"),
  /** The server, when --server does not name one. */
  server: () => value("SLIPWAY_SERVER"),
  /** XDG base directory for the stored login. */
  configHome: () => value("XDG_CONFIG_HOME"),
  /** https://no-color.org: any non-empty value turns colours off. */
  noColor: () => value("NO_COLOR") !== undefined,
  forceColor: () => value("FORCE_COLOR") !== undefined && value("FORCE_COLOR") !== "0",
  /** Print stack traces of unexpected errors. */
  debug: () => value("SLIPWAY_DEBUG") !== undefined,
  /** A graphical session a browser can open in (Linux). */
  hasDisplay: () => value("DISPLAY") !== undefined || value("WAYLAND_DISPLAY") !== undefined,
  shell: () => value("SHELL"),
};

/** This package's version, from its package.json (one folder up from cli/, two from dist/cli/). */
export function packageVersion(): string {
  for (const relative of ["../package.json", "../../package.json"]) {
    try {
      const pkg = JSON.parse(fs.readFileSync(new URL(relative, import.meta.url), "utf8"));
      if (pkg.name === "slipway") return pkg.version;
    } catch {
      // not there: the other layout
    }
  }
  return "unknown";
}

// Which builders this host can run: each builder names the programs it needs, and builds (in the sandbox, which
// sees the host's /usr read-only) can only run what the host has installed.
import fs from "node:fs/promises";
import type { Builder, Toolchain } from "./types.ts";

async function installed(toolchain: Toolchain): Promise<boolean> {
  return fs.access(toolchain.command, fs.constants.X_OK).then(() => true, () => false);
}

/** The toolchains of a builder that are missing on this host. */
export async function missingToolchains(builder: Builder): Promise<Toolchain[]> {
  const missing: Toolchain[] = [];
  for (const toolchain of builder.toolchains ?? []) if (!(await installed(toolchain))) missing.push(toolchain);
  return missing;
}

/** What to tell the user whose build needs a toolchain the host lacks. */
export function missingToolchainMessage(builder: Builder, missing: Toolchain[]): string {
  const commands = missing.map((t) => t.command).join(" and ");
  return `The ${builder.name} builder needs ${commands}, which this Slipway server does not have: its operator can add it with \`apt-get install ${packagesOf(missing)}\`.`;
}

/** The Debian packages that provide these toolchains, each once. */
function packagesOf(toolchains: Toolchain[]): string {
  return [...new Set(toolchains.map((t) => t.debianPackage))].join(" ");
}

/** One line for the boot log: the builders this host can run on its runtime, and what the others need. */
export async function describeBuilders(builders: readonly Builder[], runtime: string): Promise<string> {
  const ready: string[] = [];
  const notReady: string[] = [];
  for (const builder of builders) {
    if (builder.runtimes && !builder.runtimes.includes(runtime)) {
      notReady.push(`${builder.name} (RUNTIME=${builder.runtimes.join("|")} only)`);
      continue;
    }
    const missing = await missingToolchains(builder);
    if (missing.length === 0) ready.push(builder.name);
    else notReady.push(`${builder.name} (apt-get install ${packagesOf(missing)})`);
  }
  return `builders available: ${ready.join(", ") || "none"}${notReady.length ? `; unavailable: ${notReady.join(", ")}` : ""}`;
}

/** The Debian packages (and add-on patterns) of every builder's toolchains: what the container runtimes' base image holds. */
export function toolchainPackages(all: readonly Builder[]): (string | RegExp)[] {
  const toolchains = all.flatMap((builder) => [...(builder.toolchains ?? []), ...(builder.optionalToolchains ?? [])]);
  return [...new Set(toolchains.flatMap((t) => t.debianPackage.split(" "))), ...toolchains.flatMap((t) => (t.addOns ? [t.addOns] : []))];
}

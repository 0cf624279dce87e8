// The machine's pip configuration, handed to Slipway as an operator of an offline installation would: its package
// indexes (file:// folders here) as BUILD_ENV variables, and the folders they live in as BUILD_READONLY_PATHS.
// Nothing is copied into the project: builds install real packages from the same index as `pip install` here.
import { execFileSync } from "node:child_process";
import path from "node:path";

export interface BuildSettings {
  BUILD_ENV: string;
  BUILD_READONLY_PATHS: string;
}

/** `pip config list` as {"global.index-url": "…"}. */
function pipConfig(): Record<string, string> {
  const text = execFileSync("/usr/bin/python3", ["-m", "pip", "config", "list"], { encoding: "utf8" });
  const entries = text.split("\n").flatMap((line) => {
    const match = /^([\w:.-]+)='(.*)'$/.exec(line.trim());
    return match ? [[match[1], match[2]] as const] : [];
  });
  return Object.fromEntries(entries);
}

/** The folder a file:// index lives in (its parent when it ends in /simple, which links to ../files). */
function hostFolder(location: string): string | null {
  const folder = location.startsWith("file://") ? new URL(location).pathname : location.startsWith("/") ? location : null;
  if (!folder) return null;
  const trimmed = folder.replace(/\/+$/, "");
  return path.basename(trimmed) === "simple" ? path.dirname(trimmed) : trimmed;
}

export function pipIndexBuildSettings(): BuildSettings {
  const config = pipConfig();
  const pick = (key: string) => config[`global.${key}`] ?? config[`:env:.${key}`] ?? "";
  const indexes = [...pick("index-url").split(/\s+/), ...pick("extra-index-url").split(/\s+/)].filter(Boolean);
  const findLinks = pick("find-links").split(/\s+/).filter(Boolean);
  if (!indexes.length) throw new Error("pip has no package index configured here (pip config list): the Python tests need one");
  const env: Record<string, string> = { PIP_INDEX_URL: indexes[0] };
  if (indexes.length > 1) env.PIP_EXTRA_INDEX_URL = indexes.slice(1).join(" ");
  if (findLinks.length) env.PIP_FIND_LINKS = findLinks.join(" ");
  const folders = [...new Set([...indexes, ...findLinks].map(hostFolder).filter((f): f is string => !!f))];
  return { BUILD_ENV: JSON.stringify(env), BUILD_READONLY_PATHS: folders.join(",") };
}

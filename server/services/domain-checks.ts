// The checks behind custom domains: which hostnames may be claimed, and the two ways an owner proves control of
// one. Rules:
// - a hostname is a DNS name of at least two labels (letters, digits, hyphens; 63 characters a label, 253 in all),
//   lowercase, without scheme, port, path or trailing dot; internationalised names are stored in their xn-- form;
// - never an IP address, the platform's own hostname, APPS_DOMAIN or a name under it (those are Slipway's);
// - HTTP challenge: `http://<hostname>:<public port>/.well-known/slipway-challenge/<token>` answers exactly the
//   token (no redirects followed, 4 KiB read at most, 5 s);
// - DNS challenge: a TXT record `_slipway-challenge.<hostname>` whose text is the token.
import { Resolver } from "node:dns/promises";
import http from "node:http";
import { isIP, type LookupFunction } from "node:net";
import { domainToASCII } from "node:url";
import { CHALLENGE_PREFIX } from "../hosting/router/challenge.ts";

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const TIMEOUT_MS = 5000;
const MAX_BODY = 4096;

export interface HostnameRules {
  platformHostname: string;
  appsDomain: string;
}

/** The hostname as stored, or a message naming what is wrong with it. */
export function checkHostname(value: unknown, rules: HostnameRules): { hostname: string } | { problem: string } {
  if (typeof value !== "string" || !value.trim()) return { problem: "Enter a hostname, like www.example.com." };
  let name = value.trim().toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(name)) return { problem: "Enter the hostname only, without http:// or https://." };
  if (name.includes("/")) return { problem: "Enter the hostname only, without a path." };
  if (name.startsWith("[") || isIP(name)) return { problem: "Enter a domain name, not an IP address." };
  if (name.includes(":")) return { problem: "Enter the hostname without a port: apps answer on the platform's port." };
  if (name.startsWith("*")) return { problem: "Wildcard domains are not supported: add each hostname." };
  if (name.endsWith(".")) name = name.slice(0, -1);
  const ascii = /^[\x21-\x7e]*$/.test(name) ? name : domainToASCII(name);
  if (!ascii) return { problem: "This is not a valid domain name." };
  const labels = ascii.split(".");
  if (labels.length < 2) return { problem: "Enter a full domain name with at least one dot, like www.example.com." };
  if (ascii.length > 253 || !labels.every((l) => LABEL.test(l))) {
    return { problem: "Use letters, digits and hyphens in each part of the name (at most 63 characters a part, 253 in all)." };
  }
  if (/^\d+$/.test(labels[labels.length - 1])) return { problem: "Enter a domain name, not an IP address." };
  const apps = rules.appsDomain.toLowerCase();
  if (ascii === rules.platformHostname.toLowerCase()) return { problem: "This is Slipway's own hostname." };
  if (ascii === apps || ascii.endsWith(`.${apps}`)) return { problem: `Names under ${apps} are Slipway's: your app already answers at <slug>.${apps}.` };
  return { hostname: ascii };
}

export interface ChallengeOptions {
  /** The port the in-process router listens on for the public (PUBLIC_URL's port, else 80). */
  port: number;
  /** Hostname → IP overrides (DOMAIN_VERIFY_RESOLVE). */
  resolve: ReadonlyMap<string, string>;
  dnsServers: string[];
}

/** Null when the hostname answers its HTTP challenge with the token, else why not. */
export function httpChallenge(hostname: string, token: string, options: ChallengeOptions): Promise<string | null> {
  const url = `http://${hostname}:${options.port}${CHALLENGE_PREFIX}${token}`;
  const override = options.resolve.get(hostname);
  const lookup: LookupFunction | undefined = override
    ? (_host, opts, callback) => {
        const family = isIP(override);
        if (opts.all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: override, family }]);
        else callback(null, override, family);
      }
    : undefined;
  return new Promise((resolve) => {
    const request = http.get(url, { lookup, timeout: TIMEOUT_MS, agent: false, headers: { "user-agent": "Slipway domain verification" } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
        if (body.length > MAX_BODY) res.destroy();
      });
      res.on("close", () => {
        if (res.statusCode !== 200) resolve(`${url} answered ${res.statusCode}`);
        else resolve(body.trim() === token ? null : `${url} did not answer the token`);
      });
    });
    request.on("timeout", () => request.destroy(new Error("no answer within 5 seconds")));
    request.on("error", (error: NodeJS.ErrnoException) => resolve(`${url} could not be fetched (${error.code === "ENOTFOUND" ? "the name does not resolve" : (error.code ?? error.message)})`));
  });
}

/** Null when a TXT record `_slipway-challenge.<hostname>` holds the token, else why not. */
export async function dnsChallenge(hostname: string, token: string, options: ChallengeOptions): Promise<string | null> {
  const name = `_slipway-challenge.${hostname}`;
  const resolver = new Resolver({ timeout: TIMEOUT_MS, tries: 2 });
  if (options.dnsServers.length) resolver.setServers(options.dnsServers);
  try {
    const records = await resolver.resolveTxt(name);
    return records.some((chunks) => chunks.join("").trim() === token) ? null : `the TXT record ${name} does not hold the token`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOTFOUND" || code === "ENODATA" ? `there is no TXT record ${name}` : `the TXT record ${name} could not be looked up (${code})`;
  }
}

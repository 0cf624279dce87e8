// domains, domains:add <hostname>, domains:verify <hostname>, domains:remove <hostname>: an app's custom domains.
// Adding one prints the DNS record to create and how control is proven; the server re-checks pending domains on
// its own, and domains:verify checks them now.
import { Api, unwrap, type GlobalOptions } from "../api.ts";
import { AddDomainMutation, DomainsQuery, RemoveDomainMutation, VerifyDomainMutation } from "../documents.ts";
import type { CliDomainFragment } from "../gql/graphql.ts";
import { resolveApp } from "../link.ts";
import { CliError, color, print, printJson, printTable } from "../output.ts";

type Options = GlobalOptions & { json?: boolean; app?: string };

/** "verified", or "pending" until control of the hostname is proven. */
function state(domain: CliDomainFragment): string {
  return domain.verified ? color.green("verified") : color.yellow("pending");
}

function record({ type, name, value }: { type: string; name: string; value: string }): string {
  return `${type.padEnd(5)} ${name}  →  ${value}`;
}

/** The DNS record to create, then what proves control while pending, or the certificate once verified. */
function printDomain(domain: CliDomainFragment, slug: string): void {
  print(`${color.bold(domain.hostname)} (${slug}): ${state(domain)}`);
  print();
  print("Point it at the app with this DNS record:");
  print(`  ${record(domain.dnsRecord)}`);
  if (!domain.verified) {
    print();
    print("Then prove you control it, either way:");
    if (domain.challengeUrl) print(`  - with the record above in place, Slipway fetches ${domain.challengeUrl}`);
    if (domain.txtRecord) print(`  - or create this TXT record: ${record(domain.txtRecord)}`);
    print();
    print(color.dim(`Pending domains are checked again every minute for an hour; check now with \`slipway domains:verify ${domain.hostname}\`.`));
  } else {
    print(`Certificate: ${domain.certificate}`);
  }
}

export async function list(options: Options) {
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  const { appDomains } = await api.graphql(DomainsQuery, { slug });
  if (options.json) return printJson(appDomains);
  if (!appDomains.length) return print(`${slug} has no custom domains. Add one with \`slipway domains:add <hostname>\`.`);
  printTable(
    ["HOSTNAME", "STATE", "DNS RECORD", "CERTIFICATE"],
    appDomains.map((d) => [d.hostname, state(d), `${d.dnsRecord.type} ${d.dnsRecord.value}`, d.certificate]),
  );
}

export async function add(hostname: string, options: Options) {
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  const domain = unwrap((await api.graphql(AddDomainMutation, { slug, hostname })).addDomain);
  if (!("hostname" in domain)) throw new CliError("Unexpected answer from the server.");
  if (options.json) return printJson(domain);
  printDomain(domain, slug);
}

export async function verify(hostname: string, options: Options) {
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  const domain = unwrap((await api.graphql(VerifyDomainMutation, { slug, hostname })).verifyDomain);
  if (!("hostname" in domain)) throw new CliError("Unexpected answer from the server.");
  if (options.json) return printJson(domain);
  print(`${color.bold(domain.hostname)} is verified: requests for it reach ${slug}.`);
  print(`Certificate: ${domain.certificate}`);
}

export async function remove(hostname: string, options: Options) {
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  const { removeDomain } = await api.graphql(RemoveDomainMutation, { slug, hostname });
  if (!removeDomain) throw new CliError(`${slug} has no domain ${hostname} (see \`slipway domains\`).`);
  print(`Removed ${hostname} from ${slug}: it no longer reaches the app.`);
}

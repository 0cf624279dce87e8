// Custom domains of an app (REST: /api/apps/:slug/domains): claim a hostname, prove control of it, remove it.
import { ConflictError, InvalidRequestError, NotFoundError } from "../../errors.ts";
import type { DnsRecord as DnsRecordShape, DomainView } from "../../services/domains.ts";
import { builder } from "../builder.ts";
import { acting } from "../context.ts";

const READ = { "read:apps": true } as const;
const WRITE = { "write:apps": true } as const;

const DnsRecord = builder.objectRef<DnsRecordShape>("DnsRecord").implement({
  description: "A record to create at the domain's DNS provider",
  fields: (t) => ({ type: t.exposeString("type"), name: t.exposeString("name"), value: t.exposeString("value") }),
});

export const Domain = builder.objectRef<DomainView>("Domain").implement({
  description: "A custom hostname an app answers on once verified",
  fields: (t) => ({
    hostname: t.exposeString("hostname"),
    verified: t.exposeBoolean("verified", { description: "Control of the hostname is proven: requests for it reach the app" }),
    verifiedAt: t.expose("verifiedAt", { type: "DateTime", nullable: true }),
    certificate: t.exposeString("certificate", {
      description:
        '"none": served over HTTP only (the in-process router, or not verified yet). With EDGE=caddy: "pending: …" until Caddy serves a certificate for the hostname, then "issued by <issuer>, valid until <UTC time>"',
    }),
    dnsRecord: t.expose("dnsRecord", { type: DnsRecord, description: "Point the hostname at the app: a CNAME to <slug>.<APPS_DOMAIN> (an apex domain: an A record to the server's address)" }),
    txtRecord: t.expose("txtRecord", { type: DnsRecord, nullable: true, description: "While pending: a TXT record that proves control (alternative to the HTTP challenge)" }),
    challengeUrl: t.exposeString("challengeUrl", { nullable: true, description: "While pending: the address fetched through the hostname; it must answer the token" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.prismaObjectField("App", "domains", (t) =>
  t.field({
    type: [Domain],
    authScopes: READ,
    description: "Custom domains, oldest first",
    resolve: (app, _args, ctx) => ctx.services.domains.ofApp(app),
  }),
);

const AddDomainInput = builder.inputType("AddDomainInput", {
  fields: (t) => ({ hostname: t.string({ description: "A DNS name like www.example.com (no scheme, port or path)" }) }),
});

builder.queryField("appDomains", (t) =>
  t.withAuth(READ).field({
    type: [Domain],
    description: "An app's custom domains, oldest first",
    args: { slug: t.arg.string() },
    resolve: (_root, { slug }, ctx) => ctx.services.domains.list(ctx.viewer.user.id, slug),
  }),
);

builder.mutationFields((t) => ({
  addDomain: t.withAuth(WRITE).field({
    type: Domain,
    description: "Claim a hostname for an app; it is routed once verified (conflict when another app holds it)",
    args: { slug: t.arg.string(), input: t.arg({ type: AddDomainInput }) },
    errors: { types: [InvalidRequestError, ConflictError, NotFoundError] },
    resolve: (_root, { slug, input }, ctx) => ctx.services.domains.add(acting(ctx), slug, input.hostname),
  }),
  verifyDomain: t.withAuth(WRITE).field({
    type: Domain,
    description: "Check the domain's challenges now (HTTP token through the hostname, or the TXT record); conflict naming why when neither passes",
    args: { slug: t.arg.string(), hostname: t.arg.string() },
    errors: { types: [ConflictError, NotFoundError] },
    resolve: (_root, { slug, hostname }, ctx) => ctx.services.domains.verify(acting(ctx), slug, hostname),
  }),
  removeDomain: t.withAuth(WRITE).boolean({
    description: "Stop routing the hostname to the app and release it",
    args: { slug: t.arg.string(), hostname: t.arg.string() },
    resolve: (_root, { slug, hostname }, ctx) => ctx.services.domains.remove(acting(ctx), slug, hostname),
  }),
}));

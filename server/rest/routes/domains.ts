// Custom domains of apps.
import type { RestRoute } from "../types.ts";

export const domainsRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/api/apps/:slug/domains",
    tag: "domains",
    summary: "The app's custom domains, oldest first, with the DNS record to create and the verification state",
    document: `query AppDomains($slug: String!) { appDomains(slug: $slug) { ...DomainFields } }`,
  },
  {
    method: "POST",
    path: "/api/apps/:slug/domains",
    tag: "domains",
    summary: "Claim a hostname `{hostname}` for the app; it is routed once verified (409 when another app holds it)",
    document: `mutation AddDomain($slug: String!, $input: AddDomainInput!) {
      addDomain(slug: $slug, input: $input) { ... on Domain { ...DomainFields } ...ErrorFields } }`,
    input: "input",
    status: 201,
  },
  {
    method: "POST",
    path: "/api/apps/:slug/domains/:hostname/verify",
    tag: "domains",
    summary: "Check the domain's challenges now: the HTTP token through the hostname, or the TXT record (409 naming why when neither passes)",
    document: `mutation VerifyDomain($slug: String!, $hostname: String!) {
      verifyDomain(slug: $slug, hostname: $hostname) { ... on Domain { ...DomainFields } ...ErrorFields } }`,
  },
  {
    method: "DELETE",
    path: "/api/apps/:slug/domains/:hostname",
    tag: "domains",
    summary: "Stop routing the hostname to the app and release it",
    document: `mutation RemoveDomain($slug: String!, $hostname: String!) { removeDomain(slug: $slug, hostname: $hostname) }`,
    status: 204,
  },
];

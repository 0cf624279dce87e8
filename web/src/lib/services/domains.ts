// Custom domains of an app: list, add, verify now, remove. Each function runs one operation and says how it went
// (a toast, or a Problem for the panel to show); the panel reloads its list after each change.
import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { problemFrom } from "./errors";
import { done, failed, mutate, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

export const DomainRow = graphql(`
  fragment DomainRow on Domain {
    hostname
    verified
    certificate
    dnsRecord {
      type
      name
      value
    }
    txtRecord {
      type
      name
      value
    }
    challengeUrl
    createdAt
  }
`);

const DomainsQuery = graphql(`
  query AppDomains($slug: String!) {
    appDomains(slug: $slug) {
      ...DomainRow
    }
  }
`);

const AddMutation = graphql(`
  mutation AddDomain($slug: String!, $input: AddDomainInput!) {
    addDomain(slug: $slug, input: $input) {
      __typename
      ... on Domain {
        hostname
      }
      ...ErrorFields
    }
  }
`);

const VerifyMutation = graphql(`
  mutation VerifyDomain($slug: String!, $hostname: String!) {
    verifyDomain(slug: $slug, hostname: $hostname) {
      __typename
      ... on Domain {
        hostname
        verified
      }
      ...ErrorFields
    }
  }
`);

const RemoveMutation = graphql(`
  mutation RemoveDomain($slug: String!, $hostname: String!) {
    removeDomain(slug: $slug, hostname: $hostname)
  }
`);

export async function loadDomains(slug: string) {
  const result = await graphqlClient().query(DomainsQuery, { slug }, { requestPolicy: "network-only" }).toPromise();
  if (!result.data) return failed<never>(problemFrom(result.error));
  return { ok: true as const, value: result.data.appDomains };
}

export async function addDomain(slug: string, hostname: string): Promise<Outcome> {
  const outcome = await mutate(AddMutation, { slug, input: { hostname } }, "addDomain", ["Domain"]);
  if (!outcome.ok) return outcome;
  toast.success(`Added ${outcome.value.hostname}. Create the DNS record, then verify it.`);
  return done;
}

export async function verifyDomain(slug: string, hostname: string): Promise<Outcome> {
  const outcome = await mutate(VerifyMutation, { slug, hostname }, "verifyDomain", ["Domain"]);
  if (!outcome.ok) return outcome;
  toast.success(`${hostname} is verified: it now reaches your app.`);
  return done;
}

export async function removeDomain(slug: string, hostname: string): Promise<Outcome> {
  const result = await graphqlClient().mutation(RemoveMutation, { slug, hostname }).toPromise();
  if (!result.data) return failed(problemFrom(result.error), `Could not remove ${hostname}.`);
  toast.success(`Removed ${hostname}. It no longer reaches your app.`);
  return done;
}

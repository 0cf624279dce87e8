// Deploying an app from its GitHub repository: its repository settings, a deploy of the branch (or of one
// commit), and the token that lets Slipway clone a private repository. Each function runs one operation,
// says how it went (a toast, or a Problem for the form to show) and reloads the page's data where the live
// subscription does not carry the change.
import { invalidate } from "$app/navigation";
import { graphql } from "$lib/gql";
import { APP_DEPENDENCY } from "./apps";
import { done, failed, mutate, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

/** What to deploy: a repository's branch, at its newest commit or at `commit` when not empty. */
export interface RepoSource {
  repo: string;
  branch: string;
  commit: string;
}

export interface RepoSettings {
  repo: string;
  branch: string;
  autoDeploy: boolean;
  previews: boolean;
}

const UpdateRepoMutation = graphql(`
  mutation UpdateAppRepo($slug: String!, $input: UpdateAppInput!) {
    updateApp(slug: $slug, input: $input) {
      __typename
      ... on App {
        slug
        repo
        branch
        autoDeploy
        previews
      }
      ...ErrorFields
    }
  }
`);

const DeployRepoMutation = graphql(`
  mutation DeployRepo($slug: String!, $input: DeployRepoInput) {
    deployRepo(slug: $slug, input: $input) {
      __typename
      ... on Deployment {
        id
      }
      ...ErrorFields
    }
  }
`);

const SetTokenMutation = graphql(`
  mutation SetAppGitHubToken($slug: String!, $token: String) {
    setAppGitHubToken(slug: $slug, token: $token) {
      __typename
      ... on App {
        slug
        hasGitHubToken
      }
      ...ErrorFields
    }
  }
`);

/** Saves the repository, branch and toggles; a Problem names the fields the server refused. */
export async function updateRepoSettings(slug: string, settings: RepoSettings): Promise<Outcome> {
  const input = { ...settings, repo: settings.repo.trim() || null, branch: settings.branch.trim() || null };
  const updated = await mutate(UpdateRepoMutation, { slug, input }, "updateApp", ["App"]);
  if (!updated.ok) return failed(updated.problem);
  toast.success(updated.value.repo ? `Saved: ${slug} deploys from ${updated.value.repo} (${updated.value.branch}).` : `Saved: ${slug} has no repository.`);
  await invalidate(APP_DEPENDENCY);
  return done;
}

/** Deploys the app's repository and branch, or the given commit of it. Answers the queued deployment's id. */
export async function deployRepo(slug: string, source: RepoSource): Promise<Outcome<{ id: string }>> {
  const input = { repo: source.repo, branch: source.branch, commit: source.commit.trim() || null };
  const started = await mutate(DeployRepoMutation, { slug, input }, "deployRepo", ["Deployment"]);
  if (!started.ok) return failed(started.problem);
  toast.success(`Deploying ${input.commit ? `commit ${input.commit.slice(0, 7)} of ` : ""}${source.repo} (${source.branch}): the build is starting.`);
  return { ok: true, value: { id: started.value.id } };
}

/** Saves the token Slipway clones the app's private repository with; null removes it. */
export async function setGitHubToken(slug: string, token: string | null): Promise<Outcome> {
  const saved = await mutate(SetTokenMutation, { slug, token }, "setAppGitHubToken", ["App"]);
  if (!saved.ok) return failed(saved.problem, token ? "Could not save the token." : "Could not remove the token.");
  toast.success(token ? "Saved the GitHub token: Slipway clones the repository with it." : "Removed the GitHub token.");
  await invalidate(APP_DEPENDENCY);
  return done;
}

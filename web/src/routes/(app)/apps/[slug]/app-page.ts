// What the app page shows, shared by its load (once) and its live subscriptions (on every change).
import { graphql } from "$lib/gql";

export const AppPageApp = graphql(`
  fragment AppPage_app on App {
    slug
    name
    status
    ...AppOverview_app
    ...ProcessesPanel_app
    deployments(limit: 20) {
      id
      ...DeploymentList_deployment
    }
    sandbox {
      ...SandboxLayers_sandbox
    }
  }
`);

// The GitHub part, loaded and watched on its own: the page still works where it fails.
export const AppPageGitHub = graphql(`
  fragment AppPage_github on App {
    ...GitHubPanel_app
    ...PreviewApps_app
    deployments(limit: 20) {
      ...DeploymentList_commit
    }
  }
`);

// What every tab of an app's page shares: the app, loaded once by the layout and then kept live by its
// subscription, handed to the tabs through a context (each tab reads it as it changes).
import { getContext, setContext } from "svelte";
import { graphql, type FragmentType } from "$lib/gql";

export const AppPageApp = graphql(`
  fragment AppPage_app on App {
    slug
    name
    status
    url
    liveDeployment {
      id
    }
    ...AppOverview_app
    ...ProcessesPanel_app
    ...AppDetailsForm_app
    ...HealthCheckForm_app
    ...SleepForm_app
    deployments(limit: 20) {
      id
      status
      error
      ...DeploymentList_deployment
      ...DeploymentCard_deployment
    }
    sandbox {
      ...SandboxLayers_sandbox
    }
  }
`);

// The GitHub part, loaded and watched on its own by the Deploys tab: the page still works where it fails.
export const AppPageGitHub = graphql(`
  fragment AppPage_github on App {
    ...GitHubPanel_app
    ...PreviewApps_app
    deployments(limit: 20) {
      ...DeploymentList_commit
    }
  }
`);

export interface AppPage {
  readonly slug: string;
  readonly app: FragmentType<typeof AppPageApp>;
  readonly canWrite: boolean;
  readonly maxUploadBytes: number;
}

const KEY = Symbol("app-page");

export function provideAppPage(page: AppPage): void {
  setContext(KEY, page);
}

export function appPage(): AppPage {
  return getContext<AppPage>(KEY);
}

/** The tabs, in order: each its own URL under /apps/:slug. */
export const APP_TABS = [
  { path: "", label: "Overview" },
  { path: "/deploys", label: "Deploys" },
  { path: "/logs", label: "Logs" },
  { path: "/metrics", label: "Metrics" },
  { path: "/runs", label: "Runs" },
  { path: "/environment", label: "Environment" },
  { path: "/resources", label: "Resources" },
  { path: "/domains", label: "Domains" },
  { path: "/settings", label: "Settings" },
] as const;

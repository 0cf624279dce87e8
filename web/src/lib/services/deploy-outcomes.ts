// Says how a deploy ended while its app's page is open: live (a link to the app) or failed (a link to why).
// The page's first answer is only recorded: a deploy that ended before the page opened is not news.
import { toast } from "./toast.svelte";

export interface ObservedDeployment {
  id: string;
  status: string;
  error?: string | null;
}

const OUTCOMES = new Set(["LIVE", "FAILED"]);

export class DeployOutcomes {
  private readonly seen = new Map<string, string>();
  private first = true;

  constructor(
    private readonly slug: string,
    private readonly appUrl: () => string,
  ) {}

  observe(deployments: readonly ObservedDeployment[]): void {
    for (const deployment of deployments) {
      const before = this.seen.get(deployment.id);
      this.seen.set(deployment.id, deployment.status);
      const ended = OUTCOMES.has(deployment.status) && (before === undefined ? !this.first : !OUTCOMES.has(before));
      if (ended) this.announce(deployment);
    }
    this.first = false;
  }

  private announce(deployment: ObservedDeployment): void {
    const name = `Deployment ${deployment.id.slice(-8)}`;
    if (deployment.status === "LIVE") {
      toast.success(`${name} of ${this.slug} is live.`, { href: this.appUrl(), label: "Open the app" });
      return;
    }
    const why = { href: `/apps/${encodeURIComponent(this.slug)}/deploys#deployment-${deployment.id}`, label: "See why" };
    toast.error(`${name} of ${this.slug} failed${deployment.error ? `: ${deployment.error}` : "."}`, why);
  }
}

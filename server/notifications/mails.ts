// The mails of MAILED_EVENTS: what happened, why, and where to look.
import type { MailMessage } from "../platform/mail/index.ts";
import type { EventName } from "./events.ts";

interface Recipient {
  name: string;
  /** The dashboard's origin (PUBLIC_URL). */
  dashboardUrl: string;
}

const OPT_OUT = "You get this mail because Slipway mails you about failed deploys and crash loops. Turn it off in the dashboard: Notifications → Mail.";

export function mailFor(event: EventName, data: Record<string, unknown>, to: Recipient): Omit<MailMessage, "to"> {
  const app = data.app as { slug: string; url: string };
  const page = `${to.dashboardUrl}/apps/${app.slug}`;
  if (event === "deploy.failed") {
    const deployment = data.deployment as { id: string; error: string | null };
    return {
      subject: `Deploy of ${app.slug} failed`,
      text:
        `Hello ${to.name},\n\nThe deployment ${deployment.id} of ${app.slug} failed: ${deployment.error ?? "see its build log"}.\n` +
        `The release that was live keeps serving, if there was one.\n\nIts build log: ${page}/deploys\n\n${OPT_OUT}\n`,
    };
  }
  if (event === "app.crashed") {
    return {
      subject: `${app.slug} keeps crashing`,
      text:
        `Hello ${to.name},\n\n${app.slug} crashed ${String(data.crashes)} times within ${String(data.withinMinutes)} minutes. ` +
        `Slipway keeps restarting it, waiting longer after each crash.\n\nIts logs: ${page}/logs\n\n${OPT_OUT}\n`,
    };
  }
  throw new Error(`no mail for ${event}`);
}

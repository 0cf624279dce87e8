// login (OAuth device flow with the server's first-party CLI client), logout (revoke, then forget), whoami.
import { env } from "../env.ts";
import { spawn } from "node:child_process";
import { Api, credentialsFromToken, normalizeServer, request, tokenRequest, type GlobalOptions } from "../api.ts";
import { credentialsPath, deleteCredentials, readCredentials, writeCredentials } from "../credentials.ts";
import { WhoamiQuery } from "../documents.ts";
import { CliError, color, print, printJson } from "../output.ts";
import { startSpinner } from "../spinner.ts";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
/** The fixed id of the public client every Slipway server creates at boot (server/services/oauth-clients.ts). */
const DEFAULT_CLIENT_ID = "svc_slipway_cli";
const SCOPES = "read:user write:user read:apps write:apps";

async function discoverClientId(server: string): Promise<string> {
  const res = await request(server, "/.well-known/oauth-authorization-server", { headers: { accept: "application/json" } });
  if (!res.ok) throw new CliError(`${server} does not look like a Slipway server (HTTP ${res.status} for its OAuth metadata).`);
  const metadata = (await res.json().catch(() => null)) as { slipway_cli_client_id?: string } | null;
  return metadata?.slipway_cli_client_id ?? DEFAULT_CLIENT_ID;
}

function openBrowser(url: string): void {
  const opener = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  if (process.platform === "linux" && !env.hasDisplay()) return;
  try {
    const child = spawn(opener, [url], { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
  } catch {
    // no browser: the address is printed anyway
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function login(options: GlobalOptions & { browser: boolean }) {
  const given = options.server ?? env.server() ?? readCredentials()?.server;
  if (!given) throw new CliError("Which server? Run `slipway login --server https://slipway.example.com`.");
  const server = normalizeServer(given);
  const clientId = await discoverClientId(server);

  const res = await request(server, "/api/oauth/device", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({ client_id: clientId, scope: SCOPES }).toString(),
  });
  const started = (await res.json().catch(() => null)) as any;
  if (!res.ok || !started?.device_code) {
    throw new CliError(`${server} refused to start a login: ${started?.error_description ?? started?.message ?? `HTTP ${res.status}`}`);
  }

  print(`To log in to ${color.bold(server)}, visit:`);
  print(`  ${color.cyan(started.verification_uri)}`);
  print(`and enter the code: ${color.bold(started.user_code)}`);
  print();
  if (options.browser) openBrowser(started.verification_uri_complete);

  let interval = Math.max(1, Number(started.interval) || 5) * 1000;
  const deadline = Date.now() + Number(started.expires_in ?? 600) * 1000;
  const spinner = startSpinner("Waiting for you to approve in the browser");
  try {
    for (;;) {
      await sleep(interval);
      if (Date.now() > deadline) throw new CliError("The code expired before it was approved. Run `slipway login` again.");
      const { status, body } = await tokenRequest(server, { grant_type: DEVICE_GRANT, device_code: started.device_code, client_id: clientId });
      if (status === 200) {
        const credentials = credentialsFromToken(server, clientId, body);
        writeCredentials(credentials);
        const api = Api.fromCredentials(credentials);
        const { viewer } = await api.graphql(WhoamiQuery, {});
        writeCredentials({ ...credentials, user: { name: viewer.user.name, email: viewer.user.email } });
        spinner.stop(`Logged in as ${viewer.user.name} <${viewer.user.email}>`);
        return;
      }
      switch (body?.error) {
        case "authorization_pending":
          continue;
        case "slow_down":
          interval += 5000;
          continue;
        case "access_denied":
          throw new CliError("The login was denied in the browser.");
        case "expired_token":
          throw new CliError("The code expired before it was approved. Run `slipway login` again.");
        default:
          throw new CliError(`Login failed: ${body?.error_description ?? body?.error ?? `HTTP ${status}`}`);
      }
    }
  } catch (error) {
    spinner.fail();
    throw error;
  }
}

export async function logout(_options: GlobalOptions) {
  const stored = readCredentials();
  if (!stored) {
    print("You are not logged in.");
    return;
  }
  // Revoking the refresh token ends the whole grant (its access tokens too); a server that cannot be reached
  // still leaves the machine logged out, and says so.
  const token = stored.refreshToken ?? stored.accessToken;
  let revoked = false;
  try {
    const res = await request(stored.server, "/oauth/revoke", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, client_id: stored.clientId }).toString(),
    });
    revoked = res.ok;
  } catch (error) {
    deleteCredentials();
    throw new CliError(`${(error as Error).message} The login was deleted from this machine but not revoked on the server.`);
  }
  deleteCredentials();
  print(revoked ? `Logged out of ${stored.server}.` : `Logged out here; ${stored.server} did not confirm the revocation.`);
}

export async function whoami(options: GlobalOptions & { json?: boolean }) {
  const api = Api.connect(options);
  const { viewer } = await api.graphql(WhoamiQuery, {});
  if (options.json) return printJson({ server: api.server, ...viewer.user });
  print(`${color.bold(viewer.user.name)} <${viewer.user.email}> on ${api.server}`);
  if (viewer.user.status !== "ACTIVE") print(color.yellow(`Account ${viewer.user.status.toLowerCase()}.`));
  if (env.token()) print(color.dim("(using SLIPWAY_TOKEN)"));
  else print(color.dim(`(login stored in ${credentialsPath()})`));
}

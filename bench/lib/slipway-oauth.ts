// Refresh tokens from a running Slipway, obtained as a third-party app obtains them: a registered
// confidential client, the user's approval on the consent page (remembered after the first time), and
// the authorization code exchanged at the token endpoint.
export const REDIRECT_URI = "http://127.0.0.1:9/callback";

export interface SlipwayClient {
  clientId: string;
  clientSecret: string;
}

async function expectStatus(res: Response, status: number, what: string): Promise<Response> {
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return res;
}

export async function registerClient(baseUrl: string, cookie: string): Promise<SlipwayClient> {
  const res = await fetch(`${baseUrl}/api/oauth/clients`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench client", description: "npm run bench", redirectUris: [REDIRECT_URI] }),
  });
  await expectStatus(res, 201, "POST /api/oauth/clients");
  const { clientId, clientSecret } = (await res.json()) as SlipwayClient;
  return { clientId, clientSecret };
}

function hiddenInputs(html: string): Record<string, string> {
  const unescape = (v: string) => v.replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))).replace(/&amp;/g, "&");
  return Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [unescape(m[1]), unescape(m[2])]));
}

/** The authorization code for `read:user`: the consent form is approved when shown, skipped once remembered. */
async function authorize(baseUrl: string, cookie: string, client: SlipwayClient): Promise<string> {
  const query = new URLSearchParams({ client_id: client.clientId, redirect_uri: REDIRECT_URI, response_type: "code", scope: "read:user" });
  let res = await fetch(`${baseUrl}/oauth/authorize?${query}`, { headers: { cookie }, redirect: "manual" });
  if (res.status === 200) {
    const form = new URLSearchParams({ ...hiddenInputs(await res.text()), decision: "approve" });
    res = await fetch(`${baseUrl}/oauth/authorize`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
      redirect: "manual",
    });
    await expectStatus(res, 303, "POST /oauth/authorize (approve)");
  } else {
    await expectStatus(res, 302, "GET /oauth/authorize (remembered consent)");
  }
  const code = new URL(res.headers.get("location")!).searchParams.get("code");
  if (!code) throw new Error(`authorization gave no code: ${res.headers.get("location")}`);
  return code;
}

export async function issueRefreshToken(baseUrl: string, cookie: string, client: SlipwayClient): Promise<string> {
  return (await issueTokens(baseUrl, cookie, client)).refresh_token;
}

/** An access and refresh token for `read:user`, through the consent page and the code exchange. */
export async function issueTokens(baseUrl: string, cookie: string, client: SlipwayClient): Promise<{ access_token: string; refresh_token: string }> {
  const code = await authorize(baseUrl, cookie, client);
  const res = await fetch(`${baseUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, client_id: client.clientId, client_secret: client.clientSecret }).toString(),
  });
  await expectStatus(res, 200, "POST /oauth/token (authorization_code)");
  return (await res.json()) as { access_token: string; refresh_token: string };
}

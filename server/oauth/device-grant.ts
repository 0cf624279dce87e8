// The device authorization grant (RFC 8628 §3.4) as an extended grant of @node-oauth/oauth2-server.
// Rules: `device_code` is required; the poll itself (pending, slow_down, denied, expired, single use)
// is the model's pollDeviceCode; once approved, tokens are issued like any other grant (a new family,
// access token + refresh token, the scope the user approved).
import OAuth2Server from "@node-oauth/oauth2-server";
import { InvalidRequestError } from "../errors.ts";
import type { Model, ModelClient } from "./model.ts";

export const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

export class DeviceCodeGrantType extends OAuth2Server.AbstractGrantType {
  declare model: Model;

  async handle(request: OAuth2Server.Request, client: ModelClient): Promise<OAuth2Server.Token> {
    const deviceCode: unknown = request.body?.device_code;
    if (typeof deviceCode !== "string" || !deviceCode) throw new InvalidRequestError("Missing parameter: `device_code`.");
    const { user, scope } = await this.model.pollDeviceCode(deviceCode, client);
    const token = {
      accessToken: await this.generateAccessToken(client, user, scope),
      accessTokenExpiresAt: this.getAccessTokenExpiresAt(),
      refreshToken: await this.generateRefreshToken(client, user, scope),
      scope,
    };
    return this.model.saveToken({ ...token, client, user }, client, user);
  }
}

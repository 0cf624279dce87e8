// Errors of the hosting engine. A DeployError's message is shown to the user as the deployment's error and
// in its build log, so it says what failed and what to change; anything else is logged and shown masked.

export class DeployError extends Error {
  override name = "DeployError";
}

export class DeployCanceled extends Error {
  override name = "DeployCanceled";
  constructor() {
    super("The deployment was canceled.");
  }
}

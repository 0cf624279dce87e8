// Errors of the hosting engine, in the one AppError family. A DeployError's message is shown to the user as the
// deployment's error and in its build log, so it says what failed and what to change; when one reaches a request
// (a restart of a release no longer kept) it is a 409 like any conflict. Anything else is logged and shown masked.
import { AppError } from "../errors.ts";

export class DeployError extends AppError {
  override readonly status: number = 409;
  override readonly code: string = "conflict";
}

export class DeployCanceled extends AppError {
  override readonly status = 409;
  override readonly code = "conflict";
  constructor() {
    super("The deployment was canceled.");
  }
}

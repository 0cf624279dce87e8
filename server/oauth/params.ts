import { InvalidRequestError } from "../errors.ts";

/**
 * One parameter of a query, form or JSON body: a string, or undefined when absent or empty. A parameter
 * given twice (or not as a string) is refused: RFC 6749 §3.1 and §3.2 forbid repeating parameters.
 */
export function param(source: unknown, name: string): string | undefined {
  const value = source && typeof source === "object" ? (source as Record<string, unknown>)[name] : undefined;
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") throw new InvalidRequestError(`The ${name} parameter must be given once, as a string.`);
  return value;
}

/** Every parameter of a form body, each read with param(): a repeated one is refused, empty ones are left out. */
export function formParams(body: unknown): Record<string, string> {
  const params: Record<string, string> = {};
  for (const name of Object.keys(body && typeof body === "object" ? body : {})) {
    const value = param(body, name);
    if (value !== undefined) params[name] = value;
  }
  return params;
}

/** Protocol endpoints take form bodies (RFC 6749 §3.2); the device endpoint also takes JSON. */
export function requireFormBody(request: { headers: Record<string, unknown>; body: unknown }, options: { json?: boolean } = {}): void {
  const type = String(request.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  const accepted = type === "application/x-www-form-urlencoded" || (options.json === true && type === "application/json");
  if (!accepted || !request.body || typeof request.body !== "object" || Array.isArray(request.body)) {
    throw new InvalidRequestError(`Send the parameters as an application/x-www-form-urlencoded${options.json ? " or JSON object" : ""} body.`);
  }
}

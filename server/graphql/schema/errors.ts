// Domain errors a client can act on are returned as typed union members (Pothos errors plugin);
// access and unexpected errors travel as GraphQL errors with extensions.code (graphql/errors.ts).
import { AppError, ConflictError, InvalidRequestError, NotFoundError, QuotaExceededError, type FieldErrors } from "../../errors.ts";
import { builder } from "../builder.ts";

export const ErrorInterface = builder.interfaceRef<AppError>("Error").implement({
  description: "A problem with the request that the caller can fix",
  fields: (t) => ({
    code: t.exposeString("code", { description: "Stable snake_case code, as in the REST error body" }),
    message: t.exposeString("message", { description: "A sentence a person can act on" }),
    httpStatus: t.exposeInt("status", { description: "The HTTP status the REST API answers this error with" }),
  }),
});

const FieldError = builder.objectRef<{ field: string; message: string }>("FieldError").implement({
  fields: (t) => ({ field: t.exposeString("field"), message: t.exposeString("message") }),
});

const fieldList = (fields: FieldErrors) => Object.entries(fields).map(([field, message]) => ({ field, message }));

builder.objectType(InvalidRequestError, {
  name: "InvalidRequestError",
  interfaces: [ErrorInterface],
  fields: (t) => ({ fields: t.field({ type: [FieldError], resolve: (e) => fieldList(e.fields) }) }),
});

builder.objectType(ConflictError, {
  name: "ConflictError",
  interfaces: [ErrorInterface],
  fields: (t) => ({ fields: t.field({ type: [FieldError], resolve: (e) => fieldList(e.fields) }) }),
});

builder.objectType(NotFoundError, { name: "NotFoundError", interfaces: [ErrorInterface] });
builder.objectType(QuotaExceededError, { name: "QuotaExceededError", interfaces: [ErrorInterface] });

/** The union members every mutation with validated input can return. */
export const inputErrors = [InvalidRequestError];

// Imports every domain so its types and root fields register on the builder, then builds the schema.
import { builder } from "../builder.ts";
import "./errors.ts";
import "./user.ts";
import "./session.ts";
import "./oauth.ts";

export const schema = builder.toSchema();

import type { Config } from "../../config.ts";
import { LogMailer } from "./log.ts";
import { SmtpMailer } from "./smtp.ts";
import type { MailLogger, Mailer } from "./types.ts";

export type { MailLogger, MailMessage, Mailer } from "./types.ts";

export function createMailer(mail: Config["mail"], logger: MailLogger): Mailer {
  return mail.smtpUrl ? new SmtpMailer(mail.smtpUrl, mail.from) : new LogMailer(logger);
}

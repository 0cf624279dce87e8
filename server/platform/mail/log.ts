import type { MailLogger, MailMessage, Mailer } from "./types.ts";

/**
 * Development default (no SMTP_URL): each mail, links included, is written to the server log. Links in
 * mails are credentials, so production sets SMTP_URL; the server says so at boot.
 */
export class LogMailer implements Mailer {
  constructor(private readonly logger: MailLogger) {
    logger.warn({}, "SMTP_URL is not set: mails (verification and password-reset links) are written to this log. Set SMTP_URL in production.");
  }

  async send(message: MailMessage): Promise<void> {
    this.logger.info({ mail: message }, `mail to ${message.to}: ${message.subject}`);
  }

  async close(): Promise<void> {}
}

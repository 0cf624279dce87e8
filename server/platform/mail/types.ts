/** Outgoing mail: SMTP in production, the server log in development. */
export interface Mailer {
  /** Resolves once the message is handed over (to the SMTP server, or to the log). */
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** What the mailer writes with: Fastify's logger in the server, the console in scripts. */
export interface MailLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

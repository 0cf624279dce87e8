// A real SMTP server (smtp-server) on a free port that keeps every message it receives, parsed
// (mailparser), so tests read the mail Slipway sends as a mail client would.
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { freePort } from "./server.ts";

export interface ReceivedMail {
  from: string;
  to: string;
  subject: string;
  text: string;
}

export interface Mailbox {
  url: string;
  messages: ReceivedMail[];
  /** The next message to `to` (one not taken before), waiting for it up to `timeoutMs`. */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startMailbox(): Promise<Mailbox> {
  const messages: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    logger: false,
    async onData(stream, session, callback) {
      try {
        const parsed = await simpleParser(stream);
        for (const rcpt of session.envelope.rcptTo) {
          messages.push({ from: parsed.from?.text ?? "", to: rcpt.address, subject: parsed.subject ?? "", text: parsed.text ?? "" });
        }
        waiters.splice(0).forEach((wake) => wake());
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async next(to, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mail = messages.find((m) => m.to === to.toLowerCase() && !taken.has(m));
        if (mail) {
          taken.add(mail);
          return mail;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, left);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The link in a mail's text that starts with `prefix`. */
export function linkIn(mail: ReceivedMail, prefix: string): URL {
  const match = mail.text.split(/\s+/).find((word) => word.startsWith(prefix));
  if (!match) throw new Error(`no link starting with ${prefix} in: ${mail.text}`);
  return new URL(match);
}

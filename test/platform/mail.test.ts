import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.ts";
import { createMailer } from "../../server/platform/mail/index.ts";

function collectingLogger() {
  const lines: { level: string; details: object; message: string }[] = [];
  const log = (level: string) => (details: object, message: string) => void lines.push({ level, details, message });
  return { lines, logger: { info: log("info"), warn: log("warn"), error: log("error") } };
}

describe("mailer", () => {
  it("without SMTP_URL writes each mail to the server log, after saying at boot that it does", async () => {
    const { lines, logger } = collectingLogger();
    const mailer = createMailer(loadConfig({}).mail, logger);
    expect(lines).toEqual([expect.objectContaining({ level: "warn", message: expect.stringMatching(/SMTP_URL is not set.*Set SMTP_URL in production/) })]);
    await mailer.send({ to: "ada@example.com", subject: "Hello", text: "a link: http://x/verify?token=t" });
    expect(lines[1]).toMatchObject({
      level: "info",
      message: "mail to ada@example.com: Hello",
      details: { mail: { to: "ada@example.com", subject: "Hello", text: "a link: http://x/verify?token=t" } },
    });
  });

  it("sends from MAIL_FROM, by default no-reply at PUBLIC_URL's host; SMTP_URL must be smtp: or smtps:", () => {
    expect(loadConfig({ PUBLIC_URL: "https://slipway.example.org" }).mail).toEqual({ from: "Slipway <no-reply@slipway.example.org>" });
    expect(loadConfig({ SMTP_URL: "smtps://u:p@mail.example:465", MAIL_FROM: "Ops <ops@example.org>" }).mail).toEqual({
      smtpUrl: "smtps://u:p@mail.example:465",
      from: "Ops <ops@example.org>",
    });
    expect(() => loadConfig({ SMTP_URL: "http://mail.example" })).toThrow(/SMTP_URL: expected a URL starting with smtp:\/\/ or smtps:\/\//);
    expect(() => loadConfig({ MAIL_FROM: "nobody" })).toThrow(/MAIL_FROM/);
  });
});

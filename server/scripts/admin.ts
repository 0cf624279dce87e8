// Out-of-band administration for operators with shell access to the server (like `gitea admin`):
//   npm run admin -- promote <email>   make the account ADMIN (and ACTIVE)
//   npm run admin -- demote <email>    make the account USER again
// It reads the same configuration (DATABASE_URL, REDIS_URL, …) as the server and changes the account
// through the same services; with REDIS_URL, running servers see the change at once, else within 30 s.
import { ConfigError, loadConfig } from "../config.ts";
import { createPlatform } from "../platform/index.ts";

const USAGE = "usage: npm run admin -- promote <email> | demote <email>";
const quiet = { info() {}, warn() {}, error: (details: object, message: string) => console.error(message, details) };

async function main(argv: string[]): Promise<number> {
  const [command, email, ...rest] = argv;
  if ((command !== "promote" && command !== "demote") || !email || rest.length) {
    console.error(USAGE);
    return 64; // EX_USAGE
  }
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 78; // EX_CONFIG
  }
  const platform = await createPlatform(config, quiet);
  try {
    const user = await platform.services.accounts.setRole(email, command === "promote" ? "ADMIN" : "USER");
    if (!user) {
      console.error(`No account uses the email ${email}. Sign up first, then run this again.`);
      return 1;
    }
    console.log(`${user.email} (${user.name}) is now ${user.role === "ADMIN" ? "an administrator" : "a user"}.`);
    return 0;
  } finally {
    await platform.close();
  }
}

process.exitCode = await main(process.argv.slice(2));

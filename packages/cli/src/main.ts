import { parseArgs } from 'node:util';
import { ConfigError } from '@maqam/server';
import { importFile, migrate, seedDemo } from './commands/catalog.ts';
import { clients, users } from './commands/accounts.ts';
import { keys } from './commands/keys.ts';
import { media } from './commands/media.ts';
import { serve } from './commands/serve.ts';
import { configFrom } from './context.ts';
import { createOutput, UsageError } from './output.ts';

const HELP = `maqam: operate a Maqam server

Usage: maqam <command> [options]

Commands:
  serve [--demo]                      run the API server (--demo seeds an empty database)
  migrate                             apply database migrations
  seed-demo [--songs N] [--seed S]    write the generated demo catalog
  import FILE.ndjson [--batch-size N] import catalog records (idempotent)
  keys create --name N [--expires-in 90d]
  keys list
  keys revoke KEY_ID
  keys rotate KEY_ID [--grace 24h]
  users create --username U (--password P | --password-stdin)
  clients create --name N --redirect-uri URI [--redirect-uri URI ...] [--scopes "read stream"]
  clients list
  media add SONG_ID AUDIO_FILE        package audio as HLS at every quality (needs ffmpeg)

Options for every command:
  --json                 machine-readable output
  --database-url URL     overrides DATABASE_URL
  --port N, --host H     override PORT and HOST (serve)

Configuration comes from the environment, as for the server (see README).`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      demo: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      'database-url': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      songs: { type: 'string' },
      seed: { type: 'string' },
      'batch-size': { type: 'string' },
      name: { type: 'string' },
      'expires-in': { type: 'string' },
      grace: { type: 'string' },
      username: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean', default: false },
      'redirect-uri': { type: 'string', multiple: true },
      scopes: { type: 'string' },
    },
  });
  const [command, ...rest] = positionals;
  const out = createOutput(values.json);
  if (values.help || command === undefined || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return command === undefined && !values.help ? 2 : 0;
  }
  const config = configFrom(values);
  switch (command) {
    case 'serve':
      return serve(config, out, values);
    case 'migrate':
      return migrate(config, out);
    case 'seed-demo':
      return seedDemo(config, out, values);
    case 'import':
      return importFile(config, out, rest[0], values);
    case 'keys':
      return keys(config, out, rest, values);
    case 'users':
      return users(config, out, rest, values);
    case 'clients':
      return clients(config, out, rest, values);
    case 'media':
      return media(config, out, rest);
    default:
      throw new UsageError(`unknown command "${command}"; see maqam help`);
  }
}

try {
  const code = await main(process.argv.slice(2));
  // serve keeps running; every other command ends here.
  if (process.argv[2] !== 'serve') process.exit(code);
} catch (error) {
  if (error instanceof UsageError || error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`maqam: ${(error as Error).message}\n`);
    process.exit(2);
  }
  process.stderr.write(`maqam: ${(error as Error).message}\n`);
  process.exit(1);
}

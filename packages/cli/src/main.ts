import { runCli } from './cli.ts';

// The process's own streams and environment; tests run commands through runCli with theirs.
const code = await runCli(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
// serve keeps running once it listens; every other command, and a serve that failed, ends here.
if (process.argv[2] !== 'serve' || code !== 0) process.exit(code);

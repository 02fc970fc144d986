/**
 * The `everynode` command. Subcommands are added by the pipeline and simulator issues; until a
 * subcommand exists it says so and exits non-zero, so scripts never mistake it for success.
 */
const [command = 'help'] = process.argv.slice(2);
process.stderr.write(`everynode: "${command}" is not available yet in this build (see README.md)\n`);
process.exit(2);

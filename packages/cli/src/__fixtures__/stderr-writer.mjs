// Preloaded with --import by the REPL test of stray stderr output: stands for a library (or Node
// itself) writing to stderr while the REPL owns the terminal. On SIGUSR2 it writes a line in two
// pieces and emits a Node warning; its process id goes to the file named by LEGION_TEST_PID_FILE.
import { writeFileSync } from 'node:fs';

const pidFile = process.env.LEGION_TEST_PID_FILE;
if (pidFile) {
  process.on('SIGUSR2', () => {
    process.stderr.write('a library warns: the cache is ');
    process.stderr.write('nearly full\n');
    process.emitWarning('this option will go away', 'DeprecationWarning');
  });
  writeFileSync(pidFile, String(process.pid));
}

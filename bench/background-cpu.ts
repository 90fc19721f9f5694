// What background work on the same box costs pool booking, by its scheduling class: one service
// (SQLite, events written, its consumers' poll off, no mail) booking alone, beside a CPU burner at
// nice 19, and beside one under SCHED_IDLE (util-linux `chrt --idle`), rounds rotating. The burner
// stands for the mail's work (the sender's thread, the catcher), which under a burst of bookings
// always has more to do than a core gives it. Why the sender's thread runs under SCHED_IDLE.
// Run: npm run bench -- background-cpu   (BENCH_ROUNDS, default 3; BENCH_SECONDS, default 6)
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bookings, seed } from './booking-load.js';
import {
  BENCH_CONNECTIONS,
  BENCH_ROUNDS,
  freePort,
  type LoadRow,
  load,
  median,
  startFloor,
  startService,
  stop,
  table,
} from './harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const SLOTS_PER_ROUND = 20_000;

/** A busy loop in a process of its own, started as `command` starts it. */
const BURNERS: Record<string, ((script: string[]) => [string, string[]]) | null> = {
  alone: null,
  'beside a burner at nice 19': (script) => ['nice', ['-n', '19', ...script]],
  'beside a burner under SCHED_IDLE': (script) => ['chrt', ['--idle', '0', ...script]],
};

const file = join(tmpdir(), `bench-background-cpu-${process.pid}.db`);
const log = join(tmpdir(), `bench-background-cpu-${process.pid}.log`);
const floor = await startFloor();
const service = await startService(
  // Mail refused (a port nobody listens on) and the consumers' poll off: bookings and their events only.
  { DATABASE_URL: `sqlite:${file}`, SMTP_URL: `smtp://127.0.0.1:${await freePort()}`, OUTBOX_POLL_MS: '0' },
  log,
);
const rows: LoadRow[] = [];
try {
  const { auth, distinctType } = await seed(service.base);
  let round = 0;
  const measure = async (name: string) => {
    const burner = BURNERS[name];
    const offset = round++ * SLOTS_PER_ROUND;
    let child: ChildProcess | null = null;
    if (burner) {
      const [command, args] = burner([process.execPath, '-e', 'for (;;);']);
      child = spawn(command, args, { stdio: 'ignore' });
    }
    try {
      return await load({
        title: `SQLite: pool booking, ${name}`,
        server: service,
        path: '/api/reservations',
        seconds: SECONDS,
        warmupSeconds: 0,
        requests: bookings(auth, distinctType, (n) => offset + n),
      });
    } finally {
      child?.kill('SIGKILL');
    }
  };
  const names = Object.keys(BURNERS);
  await measure('alone'); // warm-up: the JIT, the planner's first statistics
  for (let r = 0; r < BENCH_ROUNDS; r++)
    for (let i = 0; i < names.length; i++) rows.push(await measure(names[(r + i) % names.length]!));
  const floorRow = await load({ title: 'floor (Fastify hello-world)', server: floor, path: '/' });
  const rps = (name: string) => median(rows.filter((row) => row.title.endsWith(name)).map((row) => row.rps));
  console.log(
    `connections ${BENCH_CONNECTIONS}, ${SECONDS} s per round, ${BENCH_ROUNDS} rounds each, Node ${process.version}, ` +
      `load average ${loadavg()[0]!.toFixed(1)}\n\n${table([...rows, floorRow], floorRow.rps)}\n`,
  );
  for (const name of names.slice(1))
    console.log(
      `${name}: median ${rps(name)}/s against ${rps('alone')}/s alone, ${((1 - rps(name) / rps('alone')) * 100).toFixed(1)}% less`,
    );
} finally {
  await stop(service);
  await stop(floor);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  rmSync(log, { force: true });
}

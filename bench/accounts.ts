// Accounts benchmark: signing in with a password against signing in with two-factor (the
// password step, then the TOTP step), on the service started as `npm start` starts it, each
// beside the bare Fastify floor measured just before it. A sign-in is a flow of one or two
// requests, so a closed loop of BENCH_CONNECTIONS workers in this process drives it (the
// service runs in its own). A TOTP code is accepted once, so every two-factor sign-in is a
// different user's, made before the case. Aim: two-factor sign-ins at least 0.5 of password
// sign-ins a second. Run: npm run bench -- accounts (BENCH_SECONDS, BENCH_CONNECTIONS,
// BENCH_SKIP_SQLITE / BENCH_SKIP_PG as for the other benches).
import * as OTPAuth from 'otpauth';
import {
  api,
  BENCH_CONNECTIONS,
  BENCH_SECONDS,
  type LoadRow,
  load,
  onBothDatabases,
  type Server,
} from './harness.js';

const PASSWORD = 'benchmark password';

interface TwoFactorUser {
  email: string;
  totp: OTPAuth.TOTP;
}

async function post(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Runs `signIn` in BENCH_CONNECTIONS loops for `seconds`; sign-ins a second and their latencies. */
async function closedLoop(
  title: string,
  signIn: () => Promise<boolean>,
  seconds = BENCH_SECONDS,
): Promise<LoadRow> {
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  const worker = async () => {
    while (performance.now() < deadline) {
      const begin = performance.now();
      if (!(await signIn())) return;
      latencies.push(performance.now() - begin);
    }
  };
  await Promise.all(Array.from({ length: BENCH_CONNECTIONS }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.floor(q * (latencies.length - 1))] ?? 0);
  return {
    title,
    rps: Math.round(latencies.length / elapsed),
    p50: at(0.5),
    p99: at(0.99),
    serverCpuUs: null,
    requests: latencies.length,
  };
}

async function makeTwoFactorUsers(base: string, count: number, tag: string): Promise<TwoFactorUser[]> {
  const users: TwoFactorUser[] = [];
  const makeOne = async (i: number) => {
    const email = `bench-2fa-${tag}-${i}@example.test`;
    const { accessToken } = await api<{ accessToken: string }>(base, 'POST', '/api/auth/register', {
      email,
      password: PASSWORD,
      name: 'Bench',
    });
    const headers = { authorization: `Bearer ${accessToken}` };
    const { secret } = await api<{ secret: string }>(base, 'POST', '/api/auth/2fa/setup', {}, headers);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 });
    await api(base, 'POST', '/api/auth/2fa/enable', { code: totp.generate() }, headers);
    users.push({ email, totp });
  };
  for (let i = 0; i < count; i += 8)
    await Promise.all(Array.from({ length: Math.min(8, count - i) }, (_, j) => makeOne(i + j)));
  return users;
}

async function measure(database: string, service: Server, floor: Server): Promise<LoadRow[]> {
  const base = service.base;
  const email = `bench-password-${database}@example.test`;
  await api(base, 'POST', '/api/auth/register', { email, password: PASSWORD, name: 'Bench' });
  const passwordSignIn = async () => {
    const body = await post(base, '/api/auth/login', { email, password: PASSWORD });
    return typeof body.accessToken === 'string';
  };
  // Warm-up, then the floor and the case side by side.
  await closedLoop('warm-up', passwordSignIn, 2);
  const floorBefore = await load({ title: 'floor', server: floor, path: '/' });
  const password = await closedLoop('sign in: password', passwordSignIn);

  // One user per two-factor sign-in: as many as the password case managed, and a margin.
  const users = await makeTwoFactorUsers(base, Math.ceil(password.requests * 1.5) + 50, database);
  let next = 0;
  const twoFactorSignIn = async () => {
    const user = users[next++];
    if (!user) throw new Error('ran out of two-factor users: raise the margin');
    const first = await post(base, '/api/auth/login', { email: user.email, password: PASSWORD });
    if (first.twoFactorRequired !== true) throw new Error('two-factor was not asked for');
    const second = await post(base, '/api/auth/login/2fa', {
      challenge: first.challenge,
      code: user.totp.generate(),
    });
    return typeof second.accessToken === 'string';
  };
  const floorBeside = await load({ title: 'floor', server: floor, path: '/' });
  const twoFactor = await closedLoop('sign in: password, then a TOTP code', twoFactorSignIn);
  console.log(
    `${database}: two-factor / password sign-ins = ${(twoFactor.rps / password.rps).toFixed(2)} (aim >= 0.5)`,
  );
  return [
    { ...password, floorRps: floorBefore.rps },
    { ...twoFactor, floorRps: floorBeside.rps },
    { ...floorBeside, title: 'floor: bare Fastify hello-world' },
  ];
}

await onBothDatabases(
  'accounts',
  (database, service, floor) => measure(database, service, floor),
  `${BENCH_CONNECTIONS} sign-ins in flight, ${BENCH_SECONDS} s a case after 2 s of warm-up; `,
  { REGISTER_RATE_LIMIT_MAX: '100000000', TWO_FACTOR_RATE_LIMIT_MAX: '100000000' },
);

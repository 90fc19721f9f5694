// The privacy seed's three people (privacy-seed.ts) and the calls each makes.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/db/database.js';
import { registerUser, type SignedInUser } from './app.js';
import { type Method, ok } from './http.js';
import { uniqueName } from './privacy.js';

type Person = SignedInUser & { name: string };
/** A call as one of the seeded people that must answer `status` (see `ok`). */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are read loosely
type Call = (method: Method, url: string, body?: unknown, status?: number) => Promise<any>;

/** The three people and their calls: P the person, C the colleague, N the neighbour. */
export interface Seeding {
  app: FastifyInstance;
  db: Db;
  person: Person;
  colleague: Person;
  neighbour: Person;
  P: Call;
  C: Call;
  N: Call;
}

/** The person, the colleague and the neighbour, each registered. */
export async function seedPeople(app: FastifyInstance, db: Db): Promise<Seeding> {
  const personName = uniqueName('Ada');
  const colleagueName = uniqueName('Carl');
  const neighbourName = uniqueName('Nina');
  const person = { ...(await registerUser(app, personName)), name: personName };
  const colleague = { ...(await registerUser(app, colleagueName)), name: colleagueName };
  const neighbour = { ...(await registerUser(app, neighbourName)), name: neighbourName };
  const callsOf =
    (user: Person): Call =>
    (method, url, body, status) =>
      ok(app, user, method, url, body, status);
  return {
    app,
    db,
    person,
    colleague,
    neighbour,
    P: callsOf(person),
    C: callsOf(colleague),
    N: callsOf(neighbour),
  };
}

import type { Kysely } from 'kysely';
import { precompiled } from '../../db/database.js';
import type { Database } from '../../db/types.js';
import { familyTypeOf } from '../resources/ports.js';

/** A version as text (PostgreSQL reads a sum of bigints as text); no row is version 0. */
const versionText = (version: string | number | bigint | null | undefined) => String(version ?? 0);

/**
 * The versions the answer cache is labelled with (migration 0013's triggers raise them),
 * each one precompiled statement: read on every availability request, hit or miss.
 */
export function createVersionReads(db: Kysely<Database>) {
  // The sum of the type's rows (PostgreSQL spreads a version over several, migration 0044).
  const selectType = precompiled(() =>
    db
      .selectFrom('availabilityVersions')
      .select((eb) => eb.fn.sum('version').as('version'))
      .where('resourceTypeId', '=', 0),
  );
  // A resource's answers are its parent's type's (a lane's parent, or the resource itself).
  const selectResource = precompiled(() =>
    db.selectFrom(familyTypeOf(db, 0, 0).as('p')).select((eb) => [
      'p.resourceTypeId',
      eb
        .selectFrom('availabilityVersions as v')
        .select((eb) => eb.fn.sum('v.version').as('version'))
        .whereRef('v.resourceTypeId', '=', 'p.resourceTypeId')
        .as('version'),
    ]),
  );
  return {
    async ofType(resourceTypeId: number): Promise<string> {
      const [row] = await selectType(db, resourceTypeId);
      return versionText(row?.version);
    },
    /** The type whose version labels the resource's answers, and that version; undefined for no such resource. */
    async ofResource(
      organisationId: number,
      resourceId: number,
    ): Promise<{ resourceTypeId: number; version: string } | undefined> {
      const [row] = await selectResource(db, organisationId, resourceId);
      return row && { resourceTypeId: row.resourceTypeId, version: versionText(row.version) };
    },
  };
}

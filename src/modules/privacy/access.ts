import type { Actor } from '../../lib/actor.js';
import { nowIso } from '../../lib/time.js';
import type { Delegates, PrivacyDeclaration } from '../../privacy/declaration.js';
import { type PrivacyContext, requirePerson, subjectOf } from './context.js';
import { exportDocument, exportStream } from './export.js';
import type { AccessReport } from './schemas.js';
import type { PrivacyService } from './service.js';

/** One declaration's categories, each with what the person has in its tables. */
function categoriesOf(
  declaration: PrivacyDeclaration,
  holdings: Record<string, number>,
): AccessReport['categories'] {
  return declaration.categories.map((category) => {
    const tables = Object.entries(declaration.tables).flatMap(([table, about]) =>
      about.kind !== 'none' && about.category === category.id
        ? [
            {
              table,
              count: holdings[table] ?? 0,
              erasure: about.erasure,
              linked: about.kind === 'personal',
            },
          ]
        : [],
    );
    return {
      ...category,
      module: declaration.module,
      linkedToAccount: tables.every((t) => t.linked),
      count: tables.reduce((sum, t) => sum + t.count, 0),
      tables: tables.map(({ linked: _linked, ...t }) => t),
    };
  });
}

/** The person's right of access: the report of what is held, and the full export. */
export function createAccess(ctx: PrivacyContext): Pick<PrivacyService, 'accessReport' | 'export'> {
  const { db, repo, declarations } = ctx;
  return {
    async accessReport(actor: Actor): Promise<AccessReport> {
      requirePerson(actor);
      const subject = await subjectOf(ctx, actor.userId);
      const categories: AccessReport['categories'] = [];
      const actingForYou: Delegates = { agents: [], oauthClients: [] };
      for (const declaration of declarations) {
        const holdings = await declaration.holdings(db.kysely, subject);
        categories.push(...categoriesOf(declaration, holdings));
        const delegates = await declaration.delegates?.(db.kysely, subject);
        actingForYou.agents.push(...(delegates?.agents ?? []));
        actingForYou.oauthClients.push(...(delegates?.oauthClients ?? []));
      }
      return {
        userId: actor.userId,
        generatedAt: nowIso(),
        categories,
        consents: await repo.currentConsents(actor.userId),
        policyAcceptance: (await repo.latestAcceptance(actor.userId)) ?? null,
        actingForYou,
      };
    },

    async export(actor: Actor) {
      requirePerson(actor);
      const subject = await subjectOf(ctx, actor.userId);
      const generatedAt = nowIso();
      return {
        filename: `privacy-export-${actor.userId}-${generatedAt.slice(0, 10)}.json`,
        stream: exportStream(exportDocument(db.kysely, declarations, subject, generatedAt)),
      };
    },
  };
}

import { InvalidCursorError } from '../../db/keyset.js';
import { type Actor, calendarScope } from '../../lib/actor.js';
import { invalidCursor } from '../../lib/errors.js';
import { type AutomationContext, ruleInScope } from './context.js';
import type { EventTag, ListAuditQuery } from './schemas.js';
import type { AutomationService } from './service.js';

/** What rules did: the audit log of runs and the tags they put on events, within the actor's reach. */
export function createAuditReads({
  repo,
  events,
}: AutomationContext): Pick<AutomationService, 'listAudit' | 'listEventTags'> {
  return {
    async listAudit(actor: Actor, query: ListAuditQuery) {
      const calendarIds = calendarScope(actor);
      const limits = calendarIds && {
        calendarIds,
        hiddenRuleIds: (await repo.listRules(actor.userId))
          .filter((rule) => !ruleInScope(actor, rule))
          .map((rule) => rule.id),
      };
      try {
        return await repo.listAudit(actor.userId, query, limits);
      } catch (error) {
        if (error instanceof InvalidCursorError) throw invalidCursor();
        throw error;
      }
    },

    async listEventTags(actor: Actor, eventId: number): Promise<EventTag[]> {
      await events.get(actor, eventId);
      return repo.listTags(eventId);
    },
  };
}

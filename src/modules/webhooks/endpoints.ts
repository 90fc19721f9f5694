import { inTransaction } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { encryptSecret } from '../../lib/crypto.js';
import { notFound, validationFailed } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { WebhooksContext } from './context.js';
import { checkedEvents, checkedUrl, normalDescription } from './endpoint-rules.js';
import { wakeDelivery } from './jobs.js';
import type { EndpointRow } from './repo.js';
import {
  type CreateWebhookInput,
  MAX_ENDPOINTS_PER_ORGANISATION,
  type UpdateWebhookInput,
  type Webhook,
  type WebhookWithSecret,
} from './schemas.js';
import { newSecret, sealContext } from './secrets.js';
import type { WebhooksService } from './service.js';
import { webhookView } from './views.js';

/** The caller may manage the organisation's webhooks, or a 403/404. */
export const manage = (ctx: WebhooksContext, actor: Actor, organisationId: number) =>
  ctx.organisations.requireMembership(actor, organisationId, { can: 'manageWebhooks' });

/** An endpoint of the organisation the caller may manage; 404 when there is none. */
export async function endpointOf(
  ctx: WebhooksContext,
  actor: Actor,
  organisationId: number,
  webhookId: number,
): Promise<EndpointRow> {
  await manage(ctx, actor, organisationId);
  const row = await ctx.repo.findEndpoint(ctx.db.kysely, organisationId, webhookId);
  if (!row) throw notFound('Webhook');
  return row;
}

/** Managing endpoints: create, read, change and delete them, and rotate their secrets. */
export function createEndpoints(
  ctx: WebhooksContext,
): Pick<WebhooksService, 'create' | 'list' | 'get' | 'update' | 'delete' | 'rotateSecret'> {
  const { db, config, jobs, repo } = ctx;
  const allowPrivate = config.webhookAllowPrivate;
  const key = config.encryptionKey;

  return {
    async create(
      actor: Actor,
      organisationId: number,
      input: CreateWebhookInput,
    ): Promise<WebhookWithSecret> {
      await manage(ctx, actor, organisationId);
      const url = await checkedUrl(input.url, allowPrivate);
      const events = checkedEvents(input.events);
      const secret = newSecret();
      const now = nowIso();
      const row = await inTransaction(db.kysely, async (trx) => {
        await repo.lockOrganisationEndpoints(trx, organisationId);
        if ((await repo.countEndpoints(trx, organisationId)) >= MAX_ENDPOINTS_PER_ORGANISATION)
          throw validationFailed(
            `An organisation may have at most ${MAX_ENDPOINTS_PER_ORGANISATION} webhook endpoints; delete one first`,
          );
        const inserted = await repo.insertEndpoint(trx, {
          organisationId,
          url,
          events: JSON.stringify(events),
          description: normalDescription(input.description),
          status: 'active',
          secretSealed: '',
          createdAt: now,
          updatedAt: now,
        });
        // Sealed once the id is known: the id is part of what the seal authenticates.
        return (await repo.updateEndpoint(trx, inserted.id, {
          secretSealed: encryptSecret(key, secret, sealContext(inserted.id)),
        }))!;
      });
      return { ...webhookView(row), secret };
    },

    async list(actor: Actor, organisationId: number): Promise<{ items: Webhook[] }> {
      await manage(ctx, actor, organisationId);
      return { items: (await repo.listEndpoints(organisationId)).map(webhookView) };
    },

    async get(actor: Actor, organisationId: number, webhookId: number): Promise<Webhook> {
      return webhookView(await endpointOf(ctx, actor, organisationId, webhookId));
    },

    async update(
      actor: Actor,
      organisationId: number,
      webhookId: number,
      input: UpdateWebhookInput,
    ): Promise<Webhook> {
      const current = await endpointOf(ctx, actor, organisationId, webhookId);
      const url = input.url === undefined ? undefined : await checkedUrl(input.url, allowPrivate);
      const events = input.events === undefined ? undefined : checkedEvents(input.events);
      const reactivated = input.status === 'active' && current.status !== 'active';
      const row = await repo.updateEndpoint(db.kysely, current.id, {
        ...(url === undefined ? {} : { url }),
        ...(events === undefined ? {} : { events: JSON.stringify(events) }),
        ...(input.description === undefined ? {} : { description: normalDescription(input.description) }),
        ...(input.status === undefined ? {} : { status: input.status }),
        // Active again: its failures start over.
        ...(reactivated ? { failingSince: null, disabledAt: null } : {}),
        updatedAt: nowIso(),
      });
      if (!row) throw notFound('Webhook');
      if (reactivated) await wakeDelivery(jobs);
      return webhookView(row);
    },

    async delete(actor: Actor, organisationId: number, webhookId: number): Promise<void> {
      await manage(ctx, actor, organisationId);
      if (!(await repo.deleteEndpoint(organisationId, webhookId))) throw notFound('Webhook');
    },

    async rotateSecret(actor: Actor, organisationId: number, webhookId: number): Promise<WebhookWithSecret> {
      const current = await endpointOf(ctx, actor, organisationId, webhookId);
      const secret = newSecret();
      const row = await repo.updateEndpoint(db.kysely, current.id, {
        secretSealed: encryptSecret(key, secret, sealContext(current.id)),
        updatedAt: nowIso(),
      });
      if (!row) throw notFound('Webhook');
      return { ...webhookView(row), secret };
    },
  };
}

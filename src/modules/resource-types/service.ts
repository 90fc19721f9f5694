import { type Db, type Executor, inTransaction } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, invalidInput, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { normaliseSchedulePolicy } from '../../scheduling/schemas.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { PaymentsService } from '../payments/service.js';
import type { ResourcesService } from '../resources/service.js';
import {
  createResourceTypeRepo,
  type ResourceTypeValues,
  type StoredResourceType,
  storedTypeQuery,
} from './repo.js';
import {
  type CreateResourceTypeInput,
  PAYMENT_WINDOW_MINUTES,
  type ResourceType,
  type ResourceTypeAnswer,
  type UpdateResourceTypeInput,
  WAITLIST_OFFER_MINUTES,
} from './schemas.js';

export { prefixedTypeColumns, type StoredResourceType } from './repo.js';

const DEFAULTS: ResourceTypeValues = {
  name: '',
  description: null,
  minBookingDuration: 60,
  bufferTime: 0,
  customerInfoFields: [],
  questions: [],
  reminders: [],
  waitlistEnabled: false,
  recurringEnabled: false,
  bookingMode: 'SINGLE_RESOURCE',
  assignment: 'first_free',
  color: null,
  icon: null,
  schedulePolicy: null,
  pricingEnabled: false,
  paymentRequired: false,
  priceAmount: null,
  priceCurrency: null,
  paymentWindowMinutes: PAYMENT_WINDOW_MINUTES.default,
  waitlistOfferMinutes: WAITLIST_OFFER_MINUTES.default,
  bookingRules: null,
  isActive: true,
};

type Input = CreateResourceTypeInput | UpdateResourceTypeInput;

/**
 * Applies a create or update body over the current values and checks the rules
 * that span fields: the top-level availabilityMode is the schedule's section, and
 * a price needs pricing on (payment needs a price).
 */
function merge(current: ResourceTypeValues, input: Input, defaultCurrency: string): ResourceTypeValues {
  const { availabilityMode, organisationId: _never, ...fields } = input;
  const next: ResourceTypeValues = { ...current };
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = value;
  }
  if (input.schedulePolicy !== undefined) {
    next.schedulePolicy = input.schedulePolicy ? normaliseSchedulePolicy(input.schedulePolicy) : null;
  }
  if (availabilityMode !== undefined) {
    const inPolicy = input.schedulePolicy?.availabilityMode;
    if (inPolicy !== undefined && inPolicy !== availabilityMode) {
      throw invalidInput('availabilityMode and schedulePolicy.availabilityMode differ', [
        {
          path: 'availabilityMode',
          message: `is ${availabilityMode} but schedulePolicy says ${inPolicy}`,
        },
      ]);
    }
    next.schedulePolicy = { ...(next.schedulePolicy ?? {}), availabilityMode };
  }
  if (next.pricingEnabled) {
    if (next.priceAmount === null) {
      throw invalidInput('A priced resource type needs priceAmount', [
        { path: 'priceAmount', message: 'is required when pricingEnabled is true' },
      ]);
    }
    next.priceCurrency ??= defaultCurrency;
  }
  if (next.paymentRequired && !next.pricingEnabled) {
    throw invalidInput('paymentRequired needs pricingEnabled', [
      { path: 'paymentRequired', message: 'can only be true when pricingEnabled is true' },
    ]);
  }
  // A checkout takes a positive amount: a free type cannot ask for payment.
  if (next.paymentRequired && next.priceAmount === 0) {
    throw invalidInput('paymentRequired needs a price above zero', [
      { path: 'priceAmount', message: 'must be at least 1 (minor units) when paymentRequired is true' },
    ]);
  }
  return next;
}

const valuesOf = ({
  id: _i,
  organisationId: _o,
  availabilityMode: _a,
  createdAt: _c,
  updatedAt: _u,
  longestReservationMinutes: _l,
  ...values
}: StoredResourceType) => values;

export type ResourceTypesService = ReturnType<typeof createResourceTypesService>;

/** Resource types of the actor's active organisation: `readCatalogue` to read, `writeCatalogue` to write. */
export function createResourceTypesService({
  db,
  organisations,
  payments,
  resources,
}: {
  db: Db;
  organisations: OrganisationsService;
  payments: Pick<PaymentsService, 'takesPayments'>;
  /** The resources module: a type in use is not deleted. */
  resources: Pick<ResourcesService, 'hasResourcesOfType'>;
}) {
  const repo = createResourceTypeRepo(db.kysely);
  const findStoredType = storedTypeQuery(db.kysely);

  /** Types as members read them: whether customers can book each now (the booking page's rule), and why not. */
  async function answered(organisationId: number, types: ResourceType[]): Promise<ResourceTypeAnswer[]> {
    const paying = types.some((t) => t.paymentRequired) && (await payments.takesPayments(organisationId));
    return types.map((type) => {
      const reason = !type.isActive
        ? ('INACTIVE' as const)
        : type.paymentRequired && !paying
          ? ('PAYMENT_NOT_READY' as const)
          : null;
      return { ...type, bookable: reason === null, notBookableReason: reason };
    });
  }
  const answeredOne = async (organisationId: number, type: ResourceType) =>
    (await answered(organisationId, [type]))[0]!;

  async function requireType(organisationId: number, id: number): Promise<ResourceType> {
    const found = await repo.find(organisationId, id);
    if (!found) throw notFound('Resource type');
    return found;
  }

  return {
    /** The IANA zone of the actor's active organisation: its schedules' local times are in it. */
    async organisationTimezone(actor: Actor): Promise<string> {
      return (await organisations.requireTenant(actor, { can: 'readCatalogue' })).timezone;
    },

    async list(actor: Actor): Promise<ResourceTypeAnswer[]> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readCatalogue' });
      return answered(organisationId, await repo.list(organisationId));
    },

    async get(actor: Actor, id: number): Promise<ResourceTypeAnswer> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readCatalogue' });
      return answeredOne(organisationId, await requireType(organisationId, id));
    },

    async create(actor: Actor, input: CreateResourceTypeInput): Promise<ResourceTypeAnswer> {
      const tenant = await organisations.requireTenant(actor, { can: 'writeCatalogue' });
      const values = merge(DEFAULTS, input, tenant.defaultCurrency);
      return answeredOne(tenant.organisationId, await repo.insert(tenant.organisationId, values, nowIso()));
    },

    async update(actor: Actor, id: number, input: UpdateResourceTypeInput): Promise<ResourceTypeAnswer> {
      const { organisationId, defaultCurrency } = await organisations.requireTenant(actor, {
        can: 'writeCatalogue',
      });
      const updated = await inTransaction(db.kysely, async (trx) => {
        const repoInTrx = createResourceTypeRepo(trx);
        const current = await repoInTrx.find(organisationId, id);
        if (!current) throw notFound('Resource type');
        const values = merge(valuesOf(current), input, defaultCurrency);
        return repoInTrx.update(organisationId, id, values, nowIso());
      });
      return answeredOne(organisationId, updated);
    },

    async setColour(actor: Actor, id: number, color: string): Promise<ResourceTypeAnswer> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'writeCatalogue' });
      const updated = await repo.setColour(organisationId, id, color, nowIso());
      if (!updated) throw notFound('Resource type');
      return answeredOne(organisationId, updated);
    },

    async remove(actor: Actor, id: number): Promise<void> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'writeCatalogue' });
      await inTransaction(db.kysely, async (trx) => {
        const repoInTrx = createResourceTypeRepo(trx);
        if (!(await repoInTrx.find(organisationId, id))) throw notFound('Resource type');
        if (await resources.hasResourcesOfType(trx, id)) {
          throw conflict(
            'RESOURCE_TYPE_IN_USE',
            'This resource type still has resources; delete or move them first',
          );
        }
        await repoInTrx.delete(organisationId, id);
      });
    },

    /**
     * One type of an organisation with what only booking and availability read, without
     * an actor (public booking, availability, resources), read through `executor`.
     */
    findStored: findStoredType,

    /** Every type of an organisation, without an actor (the public catalogue). */
    listInOrganisation: (organisationId: number) => repo.list(organisationId),

    /**
     * Takes the type's catalogue lock in `trx` (held until it ends) and answers the type's
     * longest reservation as read under the lock. Changes to the type's resources take it;
     * bookings do not: their insert holds the lane's row as they read it instead.
     */
    lockForBooking: (trx: Executor, id: number) => createResourceTypeRepo(trx).lockForBooking(id, db.dialect),

    /** In `trx`: raises the type's longest reservation to `minutes` when that is longer. */
    recordReservationLength: (trx: Executor, id: number, minutes: number) =>
      createResourceTypeRepo(trx).recordReservationLength(id, minutes),
    requireType,
  };
}

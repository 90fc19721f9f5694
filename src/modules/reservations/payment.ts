import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Executor } from '../../db/database.js';
import type { PaymentsService } from '../payments/service.js';
import { createCheckouts } from './payment-checkouts.js';
import { createPaymentEventHandler } from './payment-events.js';
import { type CancelRefunds, createCancelRefunds } from './payment-refunds.js';
import { createPaymentStarts, type PaymentStarts } from './payment-start.js';
import type { ReservationRepo } from './repo.js';

/**
 * The reservation side of payment (DECISIONS.md "Payment"): a paid booking waits in
 * `pending_payment` on a hosted checkout at the organisation's connected account, which
 * expires with it (payment-start.ts); the provider's verified events (handed over by the
 * payments service) confirm, decline or expire it (payment-events.ts); cancelling a paid
 * reservation refunds it in full (payment-refunds.ts).
 */
export interface ReservationPayments extends PaymentStarts, CancelRefunds {
  /** The organisation's account that takes the charge, read through `executor`; else 409 PAYMENT_NOT_READY. */
  chargeableAccount(organisationId: number, executor?: Executor): Promise<string>;
}

/** Builds the reservation side of payment and hands the payments service its event handler. */
export function createReservationPayments(deps: {
  repo: ReservationRepo;
  payments: PaymentsService;
  config: Config;
  log?: FastifyBaseLogger | undefined;
}): ReservationPayments {
  const { repo, payments } = deps;
  const checkouts = createCheckouts({ provider: payments.provider, config: deps.config, log: deps.log });
  payments.handleEvents(createPaymentEventHandler({ repo, refund: checkouts.refund }));

  return {
    chargeableAccount: (organisationId, executor) => payments.chargeableAccount(organisationId, executor),
    ...createPaymentStarts({ repo, payments, checkouts }),
    ...createCancelRefunds({ repo, checkouts }),
  };
}

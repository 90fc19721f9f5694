import { z } from 'zod';

export const providerConnectStatus = z.enum(['not_connected', 'pending', 'active']);

export const paymentStatus = z
  .object({
    organisationId: z.number().int(),
    providerAccountId: z.string().nullable(),
    providerConnectStatus,
    defaultCurrency: z.string(),
    chargesEnabled: z.boolean(),
    payoutsEnabled: z.boolean(),
    detailsSubmitted: z.boolean(),
    requiresOnboarding: z.boolean(),
    currentlyDue: z.array(z.string()),
    pendingVerification: z.array(z.string()),
    disabledReason: z.string().nullable(),
  })
  .describe('Payment connection status');
export type PaymentStatus = z.infer<typeof paymentStatus>;

export const onboardingLink = z.object({
  url: z.string(),
  providerAccountId: z.string(),
  providerConnectStatus,
});
export type OnboardingLink = z.infer<typeof onboardingLink>;

export const dashboardLink = z.object({ url: z.string(), providerAccountId: z.string() });
export type DashboardLink = z.infer<typeof dashboardLink>;

/** The answer to a webhook delivery the service accepted. */
export const webhookReceipt = z.object({
  received: z.literal(true),
  duplicate: z
    .boolean()
    .describe('True when the delivery changed nothing: the event was received before, or already applied'),
});
export type WebhookReceipt = z.infer<typeof webhookReceipt>;

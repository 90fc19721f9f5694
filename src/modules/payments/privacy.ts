import { noPersonalData, type PrivacyDeclaration } from '../../privacy/declaration.js';

/** The payment-provider connection belongs to an organisation, never to a person. */
export const paymentsPrivacy: PrivacyDeclaration = {
  module: 'payments',
  tables: {
    organisation_payment_accounts: noPersonalData(
      "An organisation's payment-provider account id and its onboarding state; no person's data",
    ),
    payment_events: noPersonalData(
      "Ids and types of payment-provider webhook events already received (replay safety); no person's data",
    ),
  },
  categories: [],
  holdings: async () => ({}),
  exports: [],
  erase: async () => ({}),
};

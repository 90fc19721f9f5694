import { noPersonalData, type PrivacyDeclaration } from '../../privacy/declaration.js';

/** Resource types describe an organisation's services; they name no person. */
export const resourceTypesPrivacy: PrivacyDeclaration = {
  module: 'resource-types',
  tables: {
    resource_types: noPersonalData("An organisation's bookable services, durations, schedules and prices"),
  },
  categories: [],
  holdings: async () => ({}),
  exports: [],
  erase: async () => ({}),
};

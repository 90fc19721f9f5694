import { noPersonalData, type PrivacyDeclaration } from '../../privacy/declaration.js';

/** The availability cache's version per resource type: numbers only, no person. */
export const availabilityPrivacy: PrivacyDeclaration = {
  module: 'availability',
  tables: {
    availability_versions: noPersonalData(
      'A counter per resource type, raised when its availability changes',
    ),
  },
  categories: [],
  holdings: async () => ({}),
  exports: [],
  erase: async () => ({}),
};

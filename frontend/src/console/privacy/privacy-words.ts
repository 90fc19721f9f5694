// The privacy centre's words: consent kinds, request kinds and statuses, and a time as the
// person's browser writes it.
import type { ConsentType, PrivacyRequest } from '../../api/types.js';

export const CONSENT_WORDS: Record<ConsentType, string> = {
  privacy_policy: 'Privacy policy',
  terms_of_service: 'Terms of service',
  marketing_email: 'Marketing email',
  data_processing: 'Data processing',
  cookie_analytics: 'Analytics cookies',
};

export const CONSENT_TYPES = Object.keys(CONSENT_WORDS) as ConsentType[];

export const REQUEST_WORDS: Record<PrivacyRequest['requestType'], string> = {
  access: 'A copy of what you hold about me (access)',
  export: 'My data in a portable file (export)',
  delete: 'Erase my account and data (delete)',
};

export const when = (iso: string) => new Date(iso).toLocaleString();

export const STATUS_WORDS: Record<PrivacyRequest['status'], string> = {
  pending: 'waiting',
  in_progress: 'being worked on',
  completed: 'done',
  rejected: 'rejected',
  cancelled: 'cancelled',
};

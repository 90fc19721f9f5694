/** Booking questions and answers the tests of DECISIONS.md "Pages people live in" share. */

/** One question of each kind; three required. */
export const QUESTIONS = [
  { id: 'company', label: 'Company', kind: 'text', required: true },
  { id: 'notes', label: 'Anything we should know?', kind: 'textarea' },
  { id: 'invoiceEmail', label: 'Invoice email', kind: 'email' },
  { id: 'mobile', label: 'Mobile', kind: 'phone' },
  { id: 'size', label: 'Room size', kind: 'select', required: true, options: ['Small', 'Large'] },
  { id: 'terms', label: 'I accept the house rules', kind: 'checkbox', required: true },
];
/** Answers to every question. */
export const ANSWERS = {
  company: 'Analytical Engines Ltd',
  notes: 'Step-free access, please.\nTwo of us use wheelchairs.',
  invoiceEmail: 'accounts@example.test',
  mobile: '+44 20 7946 0000',
  size: 'Large',
  terms: true,
};

import { isLocale } from '../../i18n/locales.js';
import type { ErrorDetail } from '../../lib/errors.js';
import { email } from '../auth/schemas.js';
import type { BookingQuestion } from '../resource-types/schemas.js';
import {
  ANSWER_LIMITS,
  type Customer,
  type CustomerAnswers,
  type CustomerRecord,
} from './customer-schemas.js';

/** One line: what a text or phone answer must be (it is shown in mails and on one row of a page). */
const ONE_LINE = /^[^\r\n]*$/;

/** Why `value` is no answer to `question`, or null when it is one. */
function answerProblem(question: BookingQuestion, value: string | boolean): string | null {
  if (question.kind === 'checkbox') {
    if (typeof value !== 'boolean') return 'must be true or false (a checkbox)';
    return question.required && !value ? 'must be true: this resource type requires it' : null;
  }
  if (typeof value !== 'string') return 'must be text';
  switch (question.kind) {
    case 'text':
      return value.length <= ANSWER_LIMITS.text && ONE_LINE.test(value)
        ? null
        : `must be one line of at most ${ANSWER_LIMITS.text} characters`;
    case 'textarea':
      return value.length <= ANSWER_LIMITS.textarea
        ? null
        : `must be at most ${ANSWER_LIMITS.textarea} characters`;
    case 'email':
      return email.safeParse(value).success ? null : 'must be a valid email address';
    case 'phone':
      return value.length <= ANSWER_LIMITS.phone && ONE_LINE.test(value)
        ? null
        : `must be a phone number of at most ${ANSWER_LIMITS.phone} characters (one line)`;
    case 'select':
      return question.options?.includes(value) ? null : `must be one of: ${question.options?.join(', ')}`;
  }
}

/**
 * What is wrong with a booking's answers to its type's questions (DECISIONS.md "Pages people
 * live in"), each under `customer.answers.<id>`: an answer to no question of the type, a
 * required question left unanswered (an empty text is no answer), or a value its kind does
 * not take. Empty when they answer the questions.
 */
export function answerIssues(
  answers: CustomerAnswers | undefined,
  questions: readonly BookingQuestion[],
): ErrorDetail[] {
  const given = answers ?? {};
  const issues: ErrorDetail[] = [];
  const asked = new Set(questions.map((question) => question.id));
  for (const id of Object.keys(given)) {
    if (!asked.has(id))
      issues.push({ path: `customer.answers.${id}`, message: 'is not a question of this resource type' });
  }
  for (const question of questions) {
    const value = Object.hasOwn(given, question.id) ? given[question.id] : undefined;
    const problem =
      value === undefined
        ? question.required
          ? 'is required by this resource type'
          : null
        : answerProblem(question, value);
    if (problem) issues.push({ path: `customer.answers.${question.id}`, message: problem });
  }
  return issues;
}

/**
 * What customer_info stores of a booking's customer (JSON): every field beyond name, email and
 * phone, `answers` when it gave any, and its `locale` and `timeZone` when given (DECISIONS.md
 * "Booking everywhere"): kept beside the rest of the customer, so events, waitlist entries, the
 * privacy export and erasure carry them as they carry the rest.
 */
export function storedCustomerInfo(customer: Customer): string {
  const { name: _name, email: _email, phone: _phone, answers, locale, timeZone, ...fields } = customer;
  return JSON.stringify({
    ...fields,
    ...(answers && Object.keys(answers).length > 0 ? { answers } : {}),
    ...(locale ? { locale } : {}),
    ...(timeZone ? { timeZone } : {}),
  });
}

/**
 * A customer as answered, from its columns: customer_info's fields as text, `answers` when
 * it holds some (an `answers` text, a customerInfoFields field of a type from before
 * questions, is none), and `locale` and `timeZone`, null when not given.
 */
export function customerRecordOf(row: {
  customerName: string;
  customerEmail: string;
  customerPhone: string | null;
  customerInfo: string;
}): CustomerRecord {
  const { answers, locale, timeZone, ...fields } = JSON.parse(row.customerInfo) as Record<string, unknown>;
  const record: CustomerRecord = {
    name: row.customerName,
    email: row.customerEmail,
    ...(row.customerPhone ? { phone: row.customerPhone } : {}),
    ...fields,
    locale: isLocale(locale) ? locale : null,
    timeZone: typeof timeZone === 'string' ? timeZone : null,
  };
  if (typeof answers === 'object' && answers !== null && Object.keys(answers).length > 0)
    record.answers = answers as CustomerAnswers;
  return record;
}

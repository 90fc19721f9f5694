// The API's refusals in the customer's language. The words are chosen as the console chooses
// them (api/errors.ts, api/field-words.ts: one table, in English); here each of those a customer
// can meet is said from the catalogue, the rest (none on these pages in practice) stays as is.
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/client.js';
import { answerWords, errorText, type FieldDetail, fieldOf, fieldWords, pathLabel } from '../api/errors.js';
import { useLocale } from './customer-language.js';

/** Refusal codes the catalogue words (`errors.<code>`); another code keeps the service's message. */
const CODES = [
  'NETWORK',
  'SLOT_UNAVAILABLE',
  'HOST_UNAVAILABLE',
  'SLOT_AVAILABLE',
  'WAITLIST_NOT_ENABLED',
  'RECURRENCE_NOT_ENABLED',
  'HOLD_EXPIRED',
  'PAYMENT_NOT_READY',
  'RATE_LIMITED',
  'INVALID_TRANSITION',
  'LINK_EXPIRED',
  'UNAVAILABLE',
  'INTERNAL',
  'NOT_FOUND',
];

/** The English field words (field-words.ts) a customer can meet, by their catalogue key. */
const FIELD_WORD_KEYS: Record<string, string> = {
  'This is required.': 'fieldErrors.required',
  'Enter your name.': 'fieldErrors.name',
  'Enter your email address.': 'fieldErrors.email',
  'Enter an email address like name@example.com.': 'fieldErrors.emailFormat',
  'Enter a phone number, like +49 30 1234567.': 'fieldErrors.phoneFormat',
  'Enter a phone number of at most 50 characters, on one line.': 'fieldErrors.phoneAnswer',
  'Please answer this question.': 'fieldErrors.answer',
  'Choose one of the options.': 'fieldErrors.option',
  'Please tick this box to continue.': 'fieldErrors.tick',
  'Keep this on one line.': 'fieldErrors.oneLine',
  'Use one line of at most 200 characters.': 'fieldErrors.textAnswer',
  'This time has already passed. Please pick a later one.': 'fieldErrors.past',
  'This is not accepted. Please check it.': 'fieldErrors.notAccepted',
  'This is not valid. Please check it.': 'fieldErrors.notAccepted',
  'This is not in the right format. Please check it.': 'fieldErrors.format',
  'This form asks for details the service no longer takes. Reload the page and try again.':
    'fieldErrors.reload',
  'This form sent something the service does not take. Reload the page and try again.': 'fieldErrors.reload',
  'Some answers are not accepted. Reload the page and try again.': 'fieldErrors.answersReload',
  'These dates cannot be booked as a series. Check how it repeats.': 'fieldErrors.series',
};

/** English field words in the customer's language; "Use at most 2,000 characters." keeps its number. */
function translated(words: string, t: TFunction, locale: string): string {
  const key = FIELD_WORD_KEYS[words];
  if (key) return t(key);
  const most = /^Use at most ([\d,]+) characters?\.$/.exec(words);
  if (most) {
    const count = Number(most[1]!.replaceAll(',', ''));
    return t('fieldErrors.atMost', { count, n: count.toLocaleString(locale) });
  }
  return words;
}

/** A refusal in the customer's words: by its code, else the service's own message. */
export function customerErrorText(error: unknown, t: TFunction): string {
  if (!(error instanceof ApiError)) return t('errors.INTERNAL');
  if (error.status === 0 || error.code === 'NETWORK') return t('errors.NETWORK');
  if (error.code === 'BOOKING_RULE_VIOLATED') {
    const rules = error.details.map((d) => d.message).filter(Boolean);
    return rules.length ? t('errors.RULES', { rules: rules.join('; ') }) : error.message;
  }
  if (error.code === 'VALIDATION_FAILED')
    return t(error.details.some((d) => d.path) ? 'errors.VALIDATION_FIELDS' : 'errors.VALIDATION');
  return CODES.includes(error.code) ? t(`errors.${error.code}`) : errorText(error);
}

/** The refusal helpers of the customer pages, in the chosen language. */
export function useCustomerErrors() {
  const { t } = useTranslation();
  const locale = useLocale();
  return {
    errorText: (error: unknown) => customerErrorText(error, t),
    /** The words for the form field `field` (`customer.email`) among the details, if it is refused. */
    wordsAt: (details: readonly FieldDetail[], field: string, given?: boolean) => {
      const detail = details.find((d) => d.path !== undefined && fieldOf(d.path) === field);
      return detail ? translated(fieldWords(detail, given), t, locale) : undefined;
    },
    answerWords: (detail: FieldDetail, kind: string, answered: boolean) =>
      translated(answerWords(detail, kind, answered), t, locale),
    /** The refused fields a form does not show (`shown`), each with its label. */
    otherFieldErrors: (error: unknown, shown: readonly string[]) =>
      error instanceof ApiError
        ? error.details
            .filter((d) => d.path !== undefined && !shown.includes(fieldOf(d.path)))
            .map((d) => {
              const words = translated(fieldWords(d), t, locale);
              const label = pathLabel(d.path ?? '');
              return label ? `${label}: ${words}` : words;
            })
        : [],
    fieldError: (error: unknown, field: string) => {
      if (!(error instanceof ApiError)) return undefined;
      const detail = error.details.find((d) => d.path && fieldOf(d.path) === field);
      return detail ? translated(fieldWords(detail), t, locale) : undefined;
    },
  };
}

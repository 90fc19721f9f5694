import { z } from 'zod';

/**
 * Currencies the payment provider settles charges in (the Connect-style API's
 * presentment currencies), lowercase ISO 4217. Organisation default currencies
 * and resource-type prices accept only these.
 */
export const SUPPORTED_CURRENCIES: ReadonlySet<string> = new Set(
  (
    'aed afn all amd ang aoa ars aud awg azn bam bbd bdt bgn bhd bif bmd bnd bob brl bsd bwp byn bzd ' +
    'cad cdf chf clp cny cop crc cve czk djf dkk dop dzd egp etb eur fjd fkp gbp gel gip gmd gnf gtq ' +
    'gyd hkd hnl htg huf idr ils inr isk jmd jod jpy kes kgs khr kmf krw kwd kyd kzt lak lbp lkr lrd ' +
    'lsl mad mdl mga mkd mmk mnt mop mur mvr mwk mxn myr mzn nad ngn nio nok npr nzd omr pab pen pgk ' +
    'php pkr pln pyg qar ron rsd rwf sar sbd scr sek sgd shp sle sos srd std szl thb tjs tnd top try ' +
    'ttd twd tzs uah ugx usd uyu uzs vnd vuv wst xaf xcd xof xpf yer zar zmw'
  ).split(' '),
);

/** The default currency of a new organisation. */
export const DEFAULT_CURRENCY = 'usd';

/** A three-letter code the provider supports; upper or lower case in, lowercase out. */
export const currencyCode = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'must be a three-letter currency code, e.g. usd')
  .transform((code) => code.toLowerCase())
  .refine((code) => SUPPORTED_CURRENCIES.has(code), {
    message: 'is not a currency the payment provider supports',
  });

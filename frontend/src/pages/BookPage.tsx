import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { usePublicCatalogue } from '../api/hooks.js';
import type { Catalogue } from '../api/types.js';
import { Branding } from '../components/Branding.js';
import { useCustomerErrors } from '../i18n/customer-errors.js';
import { CustomerLanguage } from '../i18n/customer-language.js';
import { startEmbedding } from '../lib/embed.js';
import { ChooseStep } from './book/ChooseStep.js';
import { DetailsStep, DoneStep, ReviewStep } from './book/LaterSteps.js';
import { useBookingChoice, useBookingInputs, useBookingSteps } from './book/use-booking-flow.js';

/** Moves focus to a step's heading when it appears, so keyboard and screen-reader users follow. */
function useFocusOnShow<T extends HTMLElement>(key: unknown) {
  const ref = useRef<T>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: focus again whenever the step changes
  useEffect(() => ref.current?.focus(), [key]);
  return ref;
}

export function BookPage() {
  const { slug = '' } = useParams();
  const catalogue = usePublicCatalogue(slug);
  // The organisation's default language decides only where `?lang=` and the browser do not.
  const organisationDefault = catalogue.isPending
    ? undefined
    : catalogue.isError
      ? null
      : catalogue.data.organisation.defaultLocale;
  return (
    <CustomerLanguage organisationDefault={organisationDefault}>
      <BookPageIn slug={slug} catalogue={catalogue} />
    </CustomerLanguage>
  );
}

function BookPageIn({ slug, catalogue }: { slug: string; catalogue: ReturnType<typeof usePublicCatalogue> }) {
  const { t } = useTranslation();
  const { errorText } = useCustomerErrors();
  if (catalogue.isPending) return <p className="loading">{t('common.loading')}</p>;
  if (catalogue.isError)
    return (
      <main className="page">
        <h1>{t('book.notAvailable')}</h1>
        <p role="alert">{errorText(catalogue.error)}</p>
      </main>
    );
  return <Booking slug={slug} catalogue={catalogue.data} />;
}

function Booking({ slug, catalogue }: { slug: string; catalogue: Catalogue }) {
  const { t } = useTranslation();
  const { organisation, resourceTypes } = catalogue;
  const inputs = useBookingInputs();
  const choice = useBookingChoice(catalogue, inputs);
  const steps = useBookingSteps();
  const headingRef = useFocusOnShow<HTMLHeadingElement>(steps.step);
  // Inside a host site's frame (embed.js): the page reports its height and its bookings there.
  useEffect(() => startEmbedding(organisation.embedOrigins), [organisation.embedOrigins]);
  const { type, time } = choice;
  const { step } = steps;

  if (resourceTypes.length === 0)
    return (
      <main className="page">
        <Branding organisation={organisation} />
        <p className="empty">{t('book.nothingBookable')}</p>
      </main>
    );
  const stepProps = type && { headingRef, slug, organisationName: organisation.name, type, choice, steps };
  return (
    <main className="page">
      <Branding organisation={organisation} />
      {step === 'choose' ? (
        <ChooseStep
          headingRef={headingRef}
          slug={slug}
          catalogue={catalogue}
          choice={choice}
          onContinue={(waitOnly) => {
            inputs.setWaitOnly(waitOnly);
            steps.setStep('details');
          }}
        />
      ) : null}
      {step === 'details' && stepProps && time ? (
        <DetailsStep {...stepProps} time={time} inputs={inputs} />
      ) : null}
      {stepProps ? <ReviewStep {...stepProps} /> : null}
      {stepProps ? <DoneStep {...stepProps} /> : null}
    </main>
  );
}

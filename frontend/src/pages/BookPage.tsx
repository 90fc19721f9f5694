import { useEffect, useRef } from 'react';
import { useParams } from 'react-router';
import { errorText } from '../api/errors.js';
import { usePublicCatalogue } from '../api/hooks.js';
import type { Catalogue } from '../api/types.js';
import { Branding } from '../components/Branding.js';
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
  if (catalogue.isPending) return <p className="loading">Loading…</p>;
  if (catalogue.isError)
    return (
      <main className="page">
        <h1>Booking page not available</h1>
        <p role="alert">{errorText(catalogue.error)}</p>
      </main>
    );
  return <Booking slug={slug} catalogue={catalogue.data} />;
}

function Booking({ slug, catalogue }: { slug: string; catalogue: Catalogue }) {
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
        <p className="empty">Nothing can be booked here at the moment.</p>
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
